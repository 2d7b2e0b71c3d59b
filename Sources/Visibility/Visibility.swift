/// Placeholder until the visibility simulator lands.
public enum VisibilityModule {}
