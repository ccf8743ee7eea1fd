"""The course on nbgrader, for the instructor: init, autograde, audit."""
