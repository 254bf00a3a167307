"""What users run: the arena (`arena`), replays (`replay`), terminal play (`play`), the demo
(`demo`), the browser app (`web`), and the conventions they share: files written atomically
(`files`) and command-line errors (`cli`)."""
