"""A Sphinx extension for the course's book: one fix to the Jupyter Book 1 stack.

sphinx-thebe adds its configuration as an inline script (``const THEBE_JS_URL = ...``)
and Sphinx 7 keeps inline scripts in both its registry and its HTML builder, so the
page gets the script twice and the browser reports "Identifier 'THEBE_JS_URL' has
already been declared". Each page keeps the first copy of every script.
"""


def _unique_scripts(app, pagename, templatename, context, doctree):
    seen, unique = set(), []
    for script in context.get("script_files", []):
        attributes = getattr(script, "attributes", {})
        # an inline script's filename is None in one copy and "" in the other
        key = (str(getattr(script, "filename", script) or ""), tuple(sorted(attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app):
    app.connect("html-page-context", _unique_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
