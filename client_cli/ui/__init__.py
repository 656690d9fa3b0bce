"""The full-screen terminal UI of ``simon play``, built on Textual."""
