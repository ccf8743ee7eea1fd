"""A finished report: its shape, its safe writing, its renderings, the gradebook, the LMS and the class page."""
