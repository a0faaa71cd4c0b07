// Loaded before every test file (bunfig.toml): tests compare ISO strings, so pin the zone.
process.env.TZ = "UTC";
