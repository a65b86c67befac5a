"""The course's widgets, one module per widget (chapters 01-16); placeholder docstring."""
