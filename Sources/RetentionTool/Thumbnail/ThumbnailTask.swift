import Dispatch
import Imaging
import Lab
import SystemIO
import MemoryProbe
import Synchronization
import FoundationEssentials
import FoundationEssentials

/// One input file and where its thumbnail goes.
package struct ThumbnailTask: Sendable, Equatable {
    /// The PNG file to thumbnail.
    package var input: String
    /// Where its thumbnail is written.
    package var output: String
    /// A job thumbnailing `input` into `output`.
    package init(input: String, output: String) {
        self.input = input
        self.output = output
    }
}
