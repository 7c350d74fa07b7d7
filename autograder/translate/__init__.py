"""The course in other languages, from the English source (``python -m autograder translate``).

- ``units``: what a notebook has to translate (its markdown cells and shown messages);
- ``catalog``: the gettext catalogs in ``translations/<language>/`` and keeping them in step;
- ``sync``: what is missing, stale or altered in a translation;
- ``build``: the translated student notebooks in ``notebooks-<language>/``, made by release.
"""

from __future__ import annotations

from lecture_utils.i18n import ENGLISH, LANGUAGES, TRANSLATIONS


def translated_languages() -> list[str]:
    """The languages other than English that have catalogs in ``translations/``."""
    return [code for code in LANGUAGES
            if code != ENGLISH and (TRANSLATIONS / code).is_dir()]
