import HearthFleet

/// The tests' name for the fleet's response collector.
typealias ResponseCollector = AppResponses
