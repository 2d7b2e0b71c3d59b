/// Placeholder until the lab lands.
public enum LabModule {}
