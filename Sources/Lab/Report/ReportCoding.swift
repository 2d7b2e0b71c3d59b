#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JSON for reports: stable key order, so diffs and scripts stay simple.
public enum ReportCoding {
    /// `value` as JSON text (sorted keys; pretty when asked).
    public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A `RunReport` from JSON bytes.
    public static func decode(_ bytes: [UInt8]) throws -> RunReport {
        try JSONDecoder().decode(RunReport.self, from: Data(bytes))
    }
}
