/// Retention: the image cache (built by the cache issue). Placeholder namespace so the
/// module exists in the package layout.
public enum RetentionModule {}
