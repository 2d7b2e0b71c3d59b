/// The value names that mark, in every command's help, a path the tool writes: the one
/// registry of output flags. `--help` shows them (`--junit <output-file>`), and the tests find
/// every output flag by these names in `--experimental-dump-help`, so an output flag added
/// later is tested against planted links without anyone listing it by hand. Every path given
/// under one of these names is written by SystemIO's rules: a symbolic link another user put in
/// a shared folder is never followed. O(1).
enum OutputValueName {
    /// A file the command writes (replaced atomically, or a stream written in place).
    static let file = "output-file"
    /// A folder the command writes files into, created if missing.
    static let folder = "output-folder"
    /// A folder, or a single file's name.
    static let folderOrFile = "output-folder|file"
    /// A disk store's folder, which the command creates, fills, trims or clears.
    static let store = "store-folder"
}
