/// A coding key for any JSON object member or array index.
///
/// The Codable types of this package decode through it so they can list the keys actually present
/// and reject unknown ones.
package struct JSONKey: CodingKey, Hashable, Sendable {
    /// The member name, or the index as text.
    package var stringValue: String
    /// The array index, or nil for an object member.
    package var intValue: Int?

    /// A key for the object member `name`. O(1).
    package init(_ name: String) {
        self.stringValue = name
        self.intValue = nil
    }

    /// A key for the object member `stringValue`; never fails. O(1).
    package init?(stringValue: String) {
        self.init(stringValue)
    }

    /// A key for the array element at `intValue`. O(1).
    package init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}
