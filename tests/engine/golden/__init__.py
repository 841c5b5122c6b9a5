"""Golden game records (NAME.json) and their final positions (NAME.position.json)."""
