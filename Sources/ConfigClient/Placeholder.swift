public enum ConfigClientPlaceholder {}
