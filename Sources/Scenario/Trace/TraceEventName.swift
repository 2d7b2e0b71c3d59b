import StrictJSON
import SystemIO
import Visibility

/// What one trace line says happened.
public enum TraceEventName: String, Sendable, Hashable, CaseIterable {
    /// The list's container was created.
    case containerCreated
    /// A row's view and state were built (`row`; optionally `image` and `stateBytes`).
    case initialized
    /// A row appeared (`row`).
    case appeared
    /// A row disappeared (`row`).
    case disappeared
    /// A row's view and state were freed (`row`).
    case released
    /// The container was destroyed; rows still built are released with it.
    case containerDestroyed
    /// The system's memory warning.
    case memoryWarning
    /// The user opened row `row`'s destination (a pushed detail view).
    case navigate
    /// The user went back from the last destination opened.
    case back
    /// A destination was built without navigation (an eager NavigationLink) (`row`).
    case destinationInitialized
    /// A destination was freed (`row`).
    case destinationReleased
    /// `count` rows were appended to the data source.
    case rowsAppended
    /// A measurement point named `name`, taken at the end of its frame.
    case checkpoint
    /// From this frame on, rows `from..<to` are on screen (placeholders are counted there);
    /// without any such line, every appeared row counts as on screen.
    case visibleRows
}
