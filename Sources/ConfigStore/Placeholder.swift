public enum ConfigStorePlaceholder {}
