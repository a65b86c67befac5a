"""The course's own helpers, kept apart from the engines: grading an exercise.

``minigrad.course`` uses the engines; the engines never import it. Its modules:

- :mod:`minigrad.course.grading`: what an exercise's test cell runs (``graded``), one
  table of checks, short failures with a hint, other routes to the answer switched off;
- :mod:`minigrad.course.integrity`: notices a notebook that patches what the tests use;
- :mod:`minigrad.course.nbgrader_plugins`: nbgrader preprocessors that the instructor's
  ``nbgrader_config.py`` switches on (needs nbgrader, the ``dev`` extra);
- :mod:`minigrad.course.widgets`: the chapters' widgets, one module each, and the
  wiring they share (:mod:`minigrad.course.widgets.controls`).
"""
