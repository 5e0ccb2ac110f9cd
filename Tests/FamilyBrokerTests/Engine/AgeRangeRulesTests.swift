import HearthCore
import Testing

/// The pure range arithmetic, without a broker.
@Suite struct AgeRangeRulesTests {
    @Test func applesExampleWithGates13And16() {
        // Olivia 14 shares 13-15, Emily 9 "12 or under", Anne 42 "16 or over".
        #expect(AgeRangeRules.bounds(age: 14, gates: [13, 16]) == (13, 15))
        #expect(AgeRangeRules.bounds(age: 9, gates: [13, 16]) == (nil, 12))
        #expect(AgeRangeRules.bounds(age: 42, gates: [13, 16]) == (16, nil))
        // Apple's "next gate minus one" example for 13/16/18: 12, 15, 17.
        #expect(
            [10, 13, 16, 17, 18].map { AgeRangeRules.bounds(age: $0, gates: [13, 16, 18]).upper } == [
                12, 15, 17, 17, nil,
            ])
    }

    @Test func validGatesPass() throws {
        for gates in [[2], [13], [13, 16], [13, 16, 18], [2, 4, 6], [99]] { try AgeRangeRules.validate(gates) }
    }

    @Test func effectiveGatesClampAtMajority() {
        #expect(AgeRangeRules.effectiveGates([13, 16], ageOfMajority: 18) == [13, 16])
        #expect(AgeRangeRules.effectiveGates([13, 18], ageOfMajority: 18) == [13, 18])
        #expect(AgeRangeRules.effectiveGates([13, 21], ageOfMajority: 18) == [13, 18])
        #expect(AgeRangeRules.effectiveGates([13, 19, 21], ageOfMajority: 18) == [13, 18])
        #expect(AgeRangeRules.effectiveGates([17, 20], ageOfMajority: 18) == [17])
        #expect(AgeRangeRules.effectiveGates([25], ageOfMajority: 18) == [18])
        #expect(AgeRangeRules.effectiveGates([16, 21], ageOfMajority: 21) == [16, 21])
    }

    @Test func declarationFollowsApple() {
        #expect(AgeRangeRules.declaration(age: 9, ageOfMajority: 18, inFamily: false) == .guardianDeclared)
        #expect(AgeRangeRules.declaration(age: 14, ageOfMajority: 18, inFamily: true) == .guardianDeclared)
        #expect(AgeRangeRules.declaration(age: 14, ageOfMajority: 18, inFamily: false) == .selfDeclared)
        #expect(AgeRangeRules.declaration(age: 30, ageOfMajority: 18, inFamily: true) == .selfDeclared)
    }
}
