// A fleet hands out HearthClient's consoles (`Fleet.parent(on:)`, `Fleet.ageConsole(on:)`): scripts that import
// HearthFleet use them without importing HearthClient too.
@_exported import HearthClient
// The test kit's pieces a fleet is built of and hands out (`fleet.postgresServer`, `TCPRelay`, `SmallFilesystem`,
// `OffsetClock`) live in HearthLab, so that a module's unit tests can use them without building the fleet.
@_exported import HearthLab
