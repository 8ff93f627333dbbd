// Owns Blade's version string (printed by --version and baked into release artifacts).
export const VERSION = "0.1.0";
