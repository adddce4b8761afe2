"""What the board's page and the hall's page share: the page shell and the security policy.

Both pages are a shell of plain HTML (no CDN, no build step) with the board drawn by
:func:`~crownhead.firmware.diagram.board_svg` where it says ``<!--BOARD-->`` (and White's side up
at ``<!--FLIPPED-->``), and every piece and role mark the board component
(``firmware/web/static/board.js``) clones at ``<!--TEMPLATES-->``. Both are served with
the same headers: scripts from the server only (no inline script), no framing, no
sniffing, no referrer, nothing cached. Kept here, below ``web`` and ``hall``, because the
hall must not import the board's web server.

>>> page = fill_shell("<div><!--BOARD--></div><template><!--TEMPLATES--></template>")
>>> page.count('data-square='), "<!--" in page
(32, False)
>>> "script-src 'self'" in CSP and "'unsafe-inline'" not in CSP.split("script-src")[1].split(";")[0]
True
"""

from __future__ import annotations

from collections.abc import Mapping

from crownhead.firmware.diagram import board_svg, component_templates

__all__ = ["CSP", "SECURITY_HEADERS", "fill_shell"]

RGB = tuple[int, int, int]

#: The Content-Security-Policy of every answer. Styles may be inline (the SVG's own
#: attributes and the hall's style block); scripts may not. Every form is sent by the
#: page's script, so no form may navigate anywhere (a form sent before the script ran
#: would put a PIN in the address bar).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)

#: The headers every answer carries (an answer may set its own ``Cache-Control``).
SECURITY_HEADERS: Mapping[str, str] = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


def fill_shell(shell: str, colours: Mapping[str, RGB] | None = None) -> str:
    """``shell`` with the board, the flipped board and the component's templates in place
    (``colours``: the LED palette by role, for the role marks)."""
    board = board_svg(None, size=None, title="The board")
    flipped = board_svg(None, size=None, flipped=True, title="The board, White's side at the top")
    return (
        shell.replace("<!--BOARD-->", board)
        .replace("<!--FLIPPED-->", flipped)
        .replace("<!--TEMPLATES-->", component_templates(colours))
    )
