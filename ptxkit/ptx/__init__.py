"""The PTX front end: parser (Lark grammar + fast path), printer, instruction table."""
