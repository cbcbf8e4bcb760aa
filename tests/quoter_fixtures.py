"""Synthetic QuoteR files in the upstream format (tests/datasets/, tests/install/test_readme.py)."""
from pathlib import Path

from irmeasures_ext.datasets.quoter import LANGUAGES

TEST_LINES = 1043  # lines of each synthetic test split
QUOTES = {  # cycled through the lines of each synthetic file
    'english': ['To be, or not to be', 'Carpe diem', 'A penny saved is a penny earned', 'carpe Diem', 'Zeal'],
    'modern-chinese': ['天下兴亡，匹夫有责', '书山有路勤为径', 'ABC 中文', '学而不思则罔'],
    'classical-chinese': ['学而时习之', '温故而知新', '己所不欲，勿施于人'],
}
LEFT_WORD = {'english': 'Before', 'modern-chinese': '前文', 'classical-chinese': '上文'}


def sample(name: str, index: int) -> tuple[str, str, str]:
    """The (left, quote, right) written on line ``index`` of the synthetic file of ``name``."""
    return f'{LEFT_WORD[name]} {index}', QUOTES[name][index % len(QUOTES[name])], f'After {index}'


def n_lines(name: str) -> int:
    return LANGUAGES[name].test_start + TEST_LINES


def write_quoter_file(path: Path, name: str) -> None:
    """Line 0 has surrounding blanks and CRLF (stripped by the official scripts), the rest plain lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ['  {}\t{}\t{}  \r\n'.format(*sample(name, 0))]
    lines += ['{}\t{}\t{}\n'.format(*sample(name, i)) for i in range(1, n_lines(name))]
    path.write_text(''.join(lines), encoding='utf-8', newline='')

