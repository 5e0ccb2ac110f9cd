// A fleet hands out HearthClient's consoles (`Fleet.parent(on:)`, `Fleet.ageConsole(on:)`): scripts that import
// HearthFleet use them without importing HearthClient too.
@_exported import HearthClient
