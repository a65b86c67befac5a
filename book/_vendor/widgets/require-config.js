// Loaded after require.js and before @jupyter-widgets/html-manager's embed-amd.js, on
// book pages that hold saved widget state (book/_config.yml, nb_ipywidgets_js).
(function () {
  // The widget modules' own URLs decide where their icon fonts load from: point them
  // at _static/widgets/, whatever the depth of the page.
  var root = document.documentElement.dataset.content_root || "";
  var here = root + "_static/widgets";
  require.config({paths: {"@jupyter-widgets": here, "@jupyter-widgets/html-manager/dist": here}});

  // @jupyter-widgets/controls typesets a widget's description with MathJax 2's
  // MathJax.Hub.Queue; the book serves MathJax 3, which has typesetPromise instead.
  // Give whatever window.MathJax is (the configuration, then MathJax 3 itself) a Hub
  // whose Queue typesets the element once MathJax is ready.
  function withHub(mathjax) {
    if (mathjax && typeof mathjax === "object" && !mathjax.Hub) {
      mathjax.Hub = {Queue: function (job) {
        var element = job && job[2], mj = window.MathJax;
        if (element && mj && mj.startup && mj.startup.promise) {
          mj.startup.promise.then(function () { return mj.typesetPromise([element]); });
        }
      }};
    }
    return mathjax;
  }
  var current = withHub(window.MathJax);
  Object.defineProperty(window, "MathJax", {
    configurable: true,
    get: function () { return current; },
    set: function (value) { current = withHub(value); },
  });
})();
