/// A key that names its image the same way in every run, so a cache with a disk tier can
/// store it under that name (Nuke and Kingfisher key their disk caches by URL). `String`
/// conforms (the string itself); a row number does not, since the row that shows an image
/// changes with the list: such keys give ``ImageCache``'s `diskName` instead.
public protocol DiskKeyConvertible {
    /// The key's name in the disk store: equal for keys of the same image, different for keys
    /// of different images, the same in every run. Should cost O(length).
    var diskName: String { get }
}

extension String: DiskKeyConvertible {
    /// The string itself. O(1).
    public var diskName: String { self }
}
