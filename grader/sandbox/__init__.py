"""The host side: a learner's process in a sandbox of its own, and its end; it knows no rule and no part."""
