"""Hostile submissions: state.py variants that attack the grader instead of solving the lab."""
