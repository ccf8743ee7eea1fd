"""setuptools' one setting that pyproject.toml cannot say: the packages, found, plus one that is mapped in.

Every package of ``agstate/`` and ``grader/`` is found (a new part's folder
ships with nothing listed by hand); ``grader.learner_notebooks`` is the
repository's ``notebooks/`` (``[tool.setuptools.package-dir]``), which no
search of the tree finds.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["agstate", "grader", "grader.*"]), "grader.learner_notebooks"])
