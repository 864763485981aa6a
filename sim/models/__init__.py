"""The physical things and chips the firmware drives, one model each: tower, table, flash, MCP23017, USB serial host link."""
