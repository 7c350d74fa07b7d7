"""Make a submitted notebook safe to open in a browser before the grader writes it out.

``autograded/<student>/<assignment>/<notebook>.ipynb`` is what people open: formgrader shows
it (rendered to HTML by nbconvert, inside the instructor's Jupyter session, where a script
could read the answer key through the contents API), ``nbgrader generate_feedback`` turns it
into the feedback page, and an instructor may open it in JupyterLab. Everything in it came
from a student, so :func:`sanitize_notebook` rewrites it, in place, into a notebook that
carries nothing active:

- markdown: rendered exactly as formgrader and the feedback render it (nbconvert's own
  markdown renderer, attachments included). If the HTML that comes out is plain (simple
  syntax a browser's tokenizer reads one way only: see ``tokens``) and holds only what the
  allow-list permits, the cell is kept as written (formatting, maths, tables, images and
  links show as before). Otherwise the cell is replaced by that HTML after ammonia's
  allow-list sanitiser (nh3; html5ever parses it as browsers do) has dropped every other
  element and attribute, written as one HTML block that markdown renderers pass through
  without reading it as markdown. Allowed: ``allow`` (elements, attributes, a short list
  of class names per element, a few CSS properties) and ``urls`` (links to public web
  hosts, mail and the page itself; images embedded, or from the hosts the instructor
  lists; nothing that names the instructor's own machine or network). Every id and name a
  student writes is prefixed (``user-content-``), and in-page links with it, so none can
  take the place of one of formgrader's own elements; renaming is not reported;
- raw cells: the same check, their text treated as HTML (nbconvert emits ``text/html`` raw
  cells into the page); ``raw_mimetype`` and ``format`` only if they are plain MIME names;
- every step is linear in the cell's size: a cell whose markdown or HTML would take longer
  (huge paragraphs of brackets, thousands of nested elements) is shown as plain text;
- attachments: only PNG, JPEG, GIF and WebP images (an SVG image can hold script);
- outputs: text and PNG/JPEG/GIF images only; HTML, markdown, SVG, JavaScript, LaTeX and
  widget views are dropped, and control characters (terminal escapes) are removed from text;
- metadata: the notebook keeps only ``kernelspec`` and ``language_info`` (no widget state,
  which the feedback page would load and render, and no signature), each cell only the
  standard keys, with values of the expected types; nbgrader's metadata only where its
  ``grade_id`` is one of the assignment's (its values are written into formgrader's pages
  unescaped).

It returns notes on what it removed from what the student wrote, in plain words, so the
grader can say so in the record and on the page; it never changes a score.
"""

from autograder.sanitize.allow import ALLOWED_CLASSES, ID_PREFIX, Policy, judge_attribute
from autograder.sanitize.markup import (
    ALLOWED_CSS,
    ALLOWED_TAGS,
    allowed_attribute,
    as_text,
    check_html,
    clean_html,
    inert_markdown,
    render_markdown,
    sanitize_markdown,
    sanitize_raw,
)
from autograder.sanitize.notebook import (
    UNKNOWN_CELLS,
    note_cell,
    numbered_notes,
    plain_text,
    sanitize_attachments,
    sanitize_cell_metadata,
    sanitize_notebook,
    sanitize_notebook_metadata,
    sanitize_outputs,
)

__all__ = [
    "ALLOWED_CLASSES", "ALLOWED_CSS", "ALLOWED_TAGS", "ID_PREFIX", "UNKNOWN_CELLS", "Policy",
    "allowed_attribute", "as_text", "check_html", "judge_attribute",
    "clean_html", "inert_markdown", "note_cell", "numbered_notes", "plain_text",
    "render_markdown", "sanitize_attachments", "sanitize_cell_metadata", "sanitize_markdown",
    "sanitize_notebook", "sanitize_notebook_metadata", "sanitize_outputs", "sanitize_raw",
]
