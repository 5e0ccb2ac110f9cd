public import HearthCore
public import HearthFleet

/// The simulated families: how many, and how many children and parents each has (one device per member).
///
/// Names are fixed so that a family file, the devices' key files and a stored history made apart agree: family
/// `f<i>`, organizer `p<i>`, guardians `p<i>.<k>`, children `c<i>` and `c<i>.<k>`; a member's device is the member id
/// with `-d` appended.
public struct LoadShape: Sendable, Codable, Equatable {
    public var families: Int
    public var children: Int
    public var parents: Int

    public init(families: Int, children: Int = 1, parents: Int = 1) {
        self.families = families
        self.children = children
        self.parents = parents
    }

    /// Devices in one family.
    public var devicesPerFamily: Int { children + parents }

    public static func child(_ family: Int, _ k: Int) -> MemberID { k == 0 ? "c\(family)" : "c\(family).\(k)" }
    public static func parent(_ family: Int, _ k: Int) -> MemberID { k == 0 ? "p\(family)" : "p\(family).\(k)" }
    public static func device(of member: MemberID) -> DeviceID { member + "-d" }

    /// The fleet to enrol: the first parent is the organizer, the others guardians.
    public func fleetSpec() -> FleetSpec {
        FleetSpec(
            families: (0..<families).map { f in
                let parents = (0..<parents).map { k -> FleetSpec.Member in
                    let id = Self.parent(f, k)
                    return k == 0
                        ? .organizer(id, devices: [Self.device(of: id)]) : .guardian(id, devices: [Self.device(of: id)])
                }
                let children = (0..<children).map { k in
                    FleetSpec.Member.child(Self.child(f, k), devices: [Self.device(of: Self.child(f, k))])
                }
                return FleetSpec.Family("f\(f)", members: parents + children)
            })
    }
}
