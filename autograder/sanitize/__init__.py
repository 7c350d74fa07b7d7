"""Make a submitted notebook safe to open in a browser before the grader writes it out.

``autograded/<student>/<assignment>/<notebook>.ipynb`` is what people open: formgrader shows
it (rendered to HTML by nbconvert, inside the instructor's Jupyter session, where a script
could read the answer key through the contents API), ``nbgrader generate_feedback`` turns it
into the feedback page, and an instructor may open it in JupyterLab. Everything in it came
from a student, so :func:`sanitize_notebook` rewrites it, in place, into a notebook that
carries nothing active:

- markdown: rendered exactly as formgrader and the feedback render it (nbconvert's own
  markdown renderer, attachments included); if the HTML that comes out holds only what the
  allow-list below permits, the cell is kept as written (formatting, maths, tables, images
  and links show as before). Otherwise the cell is replaced by that HTML after the
  allow-list sanitiser (bleach, the library nbconvert's own sanitiser uses) has escaped
  every other element and dropped every other attribute and link, written as one HTML block
  that markdown renderers pass through without reading it as markdown;
- raw cells: the same check, their text treated as HTML (nbconvert emits ``text/html`` raw
  cells into the page); ``raw_mimetype`` and ``format`` only if they are plain MIME names;
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

from autograder.sanitize.markup import (
    ALLOWED_CSS,
    ALLOWED_TAGS,
    allowed_attribute,
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
    "ALLOWED_CSS", "ALLOWED_TAGS", "UNKNOWN_CELLS", "allowed_attribute", "check_html",
    "clean_html", "inert_markdown", "note_cell", "numbered_notes", "plain_text",
    "render_markdown", "sanitize_attachments", "sanitize_cell_metadata", "sanitize_markdown",
    "sanitize_notebook", "sanitize_notebook_metadata", "sanitize_outputs", "sanitize_raw",
]
