"""From the master to the learner's copies: the release, the nbgrader assignment, the workspace."""
