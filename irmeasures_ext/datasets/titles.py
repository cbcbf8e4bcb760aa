"""Title normalisers for NCI's document deduplication: what ``bert-base-uncased`` makes of a title
when it is tokenized and decoded again (NCI's ``lower()``), exactly or approximately.

- ``bert``: the real tokenizer (``transformers.BertTokenizer.from_pretrained('bert-base-uncased')``;
  ``pip install '.[nci]'`` in a clone), as NCI runs it: ``decode(convert_tokens_to_ids(
  tokenize(title)))``, with decode's clean-up of spaces before punctuation.
- ``basic``: the built-in fallback, with no vocabulary: BERT's basic tokenisation (drop control
  characters, whitespace to spaces, spaces around CJK ideographs, lowercase, strip accents, split
  off every punctuation character), tokens joined with spaces, and the same clean-up.

They differ only where the vocabulary matters: a word holding a character absent from
bert-base-uncased's vocabulary (some symbols and scripts), or longer than 100 characters, becomes
``[UNK]`` under ``bert`` (so two such titles may merge) and stays itself under ``basic``; TriviaQA's
``bert`` mode also keeps only a title's first 512 WordPieces. Titles of letters, digits and
common punctuation normalise alike.

The environment variable ``IRMEASURES_EXT_NCI_TITLES`` (``bert`` or ``basic``) chooses; without it
``bert`` is used when ``transformers`` is installed, else ``basic`` with a warning. The built
collections are kept per normaliser.
"""
from __future__ import annotations

import functools
import os
import unicodedata
import warnings
from collections.abc import Callable

from irmeasures_ext.errors import extra_install

ENVIRONMENT = 'IRMEASURES_EXT_NCI_TITLES'
NORMALISERS = ('bert', 'basic')

#: The clean-up of spaces BERT's decode applies (transformers' ``clean_up_tokenization``).
_CLEAN_UP = ((' .', '.'), (' ?', '?'), (' !', '!'), (' ,', ','), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
             (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def clean_up(text: str) -> str:
    """Removes the spaces BERT's decode removes before some punctuation and contractions."""
    for old, new in _CLEAN_UP:
        text = text.replace(old, new)
    return text


def _is_punctuation(char: str) -> bool:
    """BERT's rule: every non-alphanumeric ASCII printable character, and Unicode category P*."""
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith('P')


def _is_cjk(code: int) -> bool:
    """The CJK Unified Ideographs blocks BERT puts spaces around."""
    return (0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2A6DF
            or 0x2A700 <= code <= 0x2B73F or 0x2B740 <= code <= 0x2B81F or 0x2B820 <= code <= 0x2CEAF
            or 0xF900 <= code <= 0xFAFF or 0x2F800 <= code <= 0x2FA1F)


def _cleaned(text: str) -> str:
    """Control characters dropped (tab, newline and carriage return count as whitespace), every
    whitespace character a space, CJK ideographs surrounded by spaces."""
    out = []
    for char in text:
        code = ord(char)
        if code in (0, 0xFFFD):
            continue
        if char in ' \t\n\r' or unicodedata.category(char) == 'Zs':
            out.append(' ')
        elif unicodedata.category(char).startswith('C'):
            continue
        elif _is_cjk(code):
            out.append(f' {char} ')
        else:
            out.append(char)
    return ''.join(out)


def basic_tokens(text: str) -> list[str]:
    """BERT's basic tokenisation of uncased models (no vocabulary)."""
    tokens = []
    for word in _cleaned(text).split():
        word = ''.join(c for c in unicodedata.normalize('NFD', word.lower()) if unicodedata.category(c) != 'Mn')
        piece: list[str] = []
        for char in word:
            if _is_punctuation(char):
                if piece:
                    tokens.append(''.join(piece))
                    piece = []
                tokens.append(char)
            else:
                piece.append(char)
        if piece:
            tokens.append(''.join(piece))
    return tokens


def basic(title: str) -> str:
    """The built-in approximation of NCI's ``lower(title)``."""
    return clean_up(' '.join(basic_tokens(title)))


@functools.cache
def _bert_tokenizer():
    from transformers import BertTokenizer
    return BertTokenizer.from_pretrained('bert-base-uncased')


def bert(title: str, max_tokens: int | None = None) -> str:
    """NCI's ``lower(title)`` with the real bert-base-uncased tokenizer (TriviaQA: ``max_tokens=512``)."""
    tokenizer = _bert_tokenizer()
    tokens = tokenizer.tokenize(title)[:max_tokens]
    return tokenizer.decode(tokenizer.convert_tokens_to_ids(tokens), clean_up_tokenization_spaces=True)


def chosen() -> str:
    """The normaliser's name: ``$IRMEASURES_EXT_NCI_TITLES``, else ``bert`` if transformers is
    installed, else ``basic`` (with a warning saying how it can differ)."""
    name = os.environ.get(ENVIRONMENT, '').strip().lower()
    if name:
        if name not in NORMALISERS:
            raise ValueError(f'{ENVIRONMENT}={name!r}: choose one of {", ".join(NORMALISERS)}')
        return name
    try:
        import transformers  # noqa: F401
    except ImportError:
        warnings.warn("transformers is not installed: NCI titles are normalised with the built-in approximation of "
                      "bert-base-uncased (words with characters outside its vocabulary are not turned into [UNK], "
                      f'so a few duplicate titles may stay apart); {extra_install("nci")}, or set '
                      f'{ENVIRONMENT}=basic to silence this', UserWarning, stacklevel=3)
        return 'basic'
    return 'bert'


def normaliser(name: str, max_tokens: int | None = None) -> Callable[[str], str]:
    """The normalising function called ``name``."""
    if name == 'basic':
        return basic
    return functools.partial(bert, max_tokens=max_tokens)
