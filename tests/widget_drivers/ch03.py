"""Chapter 03's widget in the browser: the topological sort, stepped."""

from tests.browser_tools import output_text, wait_for_change, wait_for_text
from tests.widget_drivers import Widget

NOTEBOOK = "03_chain_rule.ipynb"


def topo_sort(page, cell, index):
    before = output_text(cell)
    assert "step 0 of 13" in before and "start: the stack holds the output out" in before
    cell.locator("button.minigrad-ch03-topo-step").click()
    wait_for_change(page, index, before)
    wait_for_text(page, index, "step 1 of 13", "stack (top on the right): [out✓, a*b, p]")
    after = output_text(cell)
    assert "step 1 of 13" in after and "pop out (first visit)" in after
    assert "stack (top on the right): [out✓, a*b, p]" in after
    cell.locator("button.minigrad-ch03-topo-step").click()
    wait_for_change(page, index, after)
    wait_for_text(page, index, "step 2 of 13", "visited: {out, p}")
    third = output_text(cell)
    assert "step 2 of 13" in third and "visited: {out, p}" in third


WIDGETS = [Widget("topo_sort", "topo_sort_widget(out)", topo_sort)]
