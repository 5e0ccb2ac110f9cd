extension RegionRules {
    /// What the US states' app store accountability acts require: an age range, and a parent's consent to (or an
    /// adult's acknowledgment of) each significant change of an app.
    static let appStoreAccountability: RegulatoryFeatures = [
        .declaredAgeRangeRequired, .significantAppChangeRequiresParentalConsent,
        .significantAppChangeRequiresAdultNotification,
    ]

    /// The table of `config/regions.yaml`, compiled in.
    public static let builtIn = RegionRules(
        defaultAgeOfMajority: 18,
        regions: [
            "US": Rule(
                ageOfMajority: 18,
                source: "US state law; 18 in 47 states (Wikipedia, Age of majority in the United States)"),
            "US-AL": Rule(ageOfMajority: 19, source: "Code of Alabama § 26-1-1"),
            "US-NE": Rule(ageOfMajority: 19, source: "Nebraska Revised Statute 43-2101"),
            "US-MS": Rule(ageOfMajority: 21, source: "Mississippi Code § 1-3-27"),
            "US-TX": Rule(
                ageOfMajority: 18, source: "Texas Civil Practice and Remedies Code § 129.001",
                regulatoryFeatures: appStoreAccountability,
                regulatorySource:
                    "Texas App Store Accountability Act (S.B. 2420, 2025), Business and Commerce Code ch. 121"),
            "US-UT": Rule(
                ageOfMajority: 18, source: "Utah Code § 15-2-1", regulatoryFeatures: appStoreAccountability,
                regulatorySource: "Utah App Store Accountability Act (S.B. 142, 2025), Utah Code Title 13 Chapter 75"),
            "US-LA": Rule(
                ageOfMajority: 18, source: "Louisiana Civil Code art. 29", regulatoryFeatures: appStoreAccountability,
                regulatorySource: "Louisiana app store accountability act (H.B. 570, 2025 Regular Session)"),
            "CA": Rule(ageOfMajority: 18, source: "Provincial law; 18 in AB, MB, ON, PE, QC, SK"),
            "CA-BC": Rule(ageOfMajority: 19, source: "Age of Majority Act, RSBC 1996 c 7, s 1"),
            "CA-NB": Rule(ageOfMajority: 19, source: "Age of Majority Act, RSNB 2011 c 103"),
            "CA-NL": Rule(ageOfMajority: 19, source: "Age of Majority Act, SNL 1995 c A-4.2"),
            "CA-NS": Rule(ageOfMajority: 19, source: "Age of Majority Act, RSNS 1989 c 4"),
            "CA-NT": Rule(ageOfMajority: 19, source: "Age of Majority Act, RSNWT 1988 c A-2"),
            "CA-NU": Rule(ageOfMajority: 19, source: "Age of Majority Act (Nunavut), RSNWT (Nu) 1988 c A-2"),
            "CA-YT": Rule(ageOfMajority: 19, source: "Age of Majority Act, RSY 2002 c 2"),
            "GB": Rule(ageOfMajority: 18, source: "Family Law Reform Act 1969, s 1"),
            "FR": Rule(ageOfMajority: 18, source: "Code civil, article 414"),
            "DE": Rule(ageOfMajority: 18, source: "Bürgerliches Gesetzbuch (BGB) § 2"),
            "IT": Rule(ageOfMajority: 18, source: "Codice civile, art. 2"),
            "ES": Rule(ageOfMajority: 18, source: "Constitución Española, art. 12"),
            "BR": Rule(ageOfMajority: 18, source: "Código Civil (Lei 10.406/2002), art. 5"),
            "IN": Rule(ageOfMajority: 18, source: "Indian Majority Act 1875, s 3"),
            "AU": Rule(
                ageOfMajority: 18, source: "Age of Majority (Reduction) Act 1970 (NSW) and the other states' acts"),
            "NZ": Rule(ageOfMajority: 18, source: "Age of Majority Act 1970, s 4 (as amended)"),
            "JP": Rule(ageOfMajority: 18, source: "Civil Code (Minpō) art. 4, as amended in force 2022-04-01"),
            "KR": Rule(ageOfMajority: 19, source: "Civil Act art. 4"),
            "TW": Rule(ageOfMajority: 18, source: "Civil Code art. 12, as amended in force 2023-01-01"),
            "TH": Rule(ageOfMajority: 20, source: "Civil and Commercial Code, s 19"),
            "SG": Rule(
                ageOfMajority: 21, source: "Civil Law Act 1909, s 35 (capacity to contract at 18; majority at 21)"),
        ])
}
