public enum ConfigServerPlaceholder {}
