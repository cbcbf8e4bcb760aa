"""Tiny NQ and TriviaQA sources in their exact upstream formats, for the nci/... datasets.

NQ: the simplified train file (one JSON object per line, ``document_text`` as space-joined tokens
with HTML tags) and the original-format dev file (``document_tokens``), gzipped, with a title
shared by train and dev, titles differing in case, accents and spacing, a page without ``<P>``, a
page without ``<H1>`` and a token holding a space. TriviaQA: a ``triviaqa-rc.tar.gz`` with the two
Wikipedia qa files, a web qa file and evidence pages (one over 10,240 characters with CR/LF and
tabs, two whose titles normalise alike), a question with several entity pages, one with a
newline, two with the same text and one citing a page absent from the evidence.
"""
from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path


def _nq_common(example_id: int, question: str) -> dict:
    return {'example_id': example_id, 'question_text': question, 'document_url': f'https://en.wikipedia.org/?id={example_id}',
            'annotations': [{'annotation_id': example_id * 10, 'long_answer': {'start_token': -1, 'end_token': -1,
                                                                                'candidate_index': -1},
                             'short_answers': [], 'yes_no_answer': 'NONE'}],
            'long_answer_candidates': [{'start_token': 0, 'end_token': 3, 'top_level': True}]}


#: (example_id, question, document_text) of the simplified train file.
NQ_TRAIN = [
    (101, 'what is python', '<H1> Python (programming language) </H1> <P> Python is a high-level language . </P> '
                            '<Ul> <Li> First item </Li> </Ul> <P> More   text  here </P> <Ul> <Li> Second </Li> </Ul> '
                            '<Ul> <Li> References </Li> </Ul>'),
    (102, 'who made python', '<H1> Python (Programming Language) </H1> <P> Another copy . </P> more'),
    (103, 'where is cafe society', '<H1> Café Society </H1> <Table> <Tr> <Td> Data </Td> </Tr> </Table>'),
    (104, 'who sang heroes', '<H1> Heroes (David Bowie song) </H1> <P> Heroes is a song . </P> <Ul> <Li> Single </Li> '
                             '</Ul> tail text'),
    (105, 'what is untitled', '<P> Untitled page text . </P> rest'),
]
#: (example_id, question, document_title, tokens) of the original-format dev file; the shard each goes to.
NQ_DEV = [
    (201, 'python release date', 'Python (Programming language)',
     ['<H1>', 'Python', '</H1>', '<P>', 'Dev copy', '</P>']),
    (202, 'cafe society members', 'Cafe society', ['<P>', 'Cafe', '</P>']),
    (203, 'how big is new york', 'New York City', ['<H1>', 'New York City', '</H1>', '<P>', 'New York', 'is', 'big',
                                                   '.', '</P>', '<Ul>', '<Li>', 'Boroughs', '</Li>', '</Ul>']),
    (204, 'heroes bowie year', 'Heroes ( David Bowie Song )', ['<P>', 'x', '</P>']),
]
DEV_SHARDS = {0: [201, 202], 1: [203], 2: [], 3: [204], 4: []}


def nq_train_record(example_id: int, question: str, text: str) -> dict:
    return {'document_text': text, **_nq_common(example_id, question)}


def nq_dev_record(example_id: int, question: str, title: str, tokens: list[str]) -> dict:
    offsets, html = [], []
    position = 0
    for token in tokens:
        offsets.append((position, position + len(token.encode())))
        html.append(token.startswith('<'))
        position += len(token.encode()) + 1
    return {**_nq_common(example_id, question), 'document_title': title,
            'document_html': ' '.join(tokens), 'question_tokens': question.split(),
            'document_tokens': [{'token': t, 'start_byte': s, 'end_byte': e, 'html_token': h}
                                for t, (s, e), h in zip(tokens, offsets, html, strict=True)]}


def write_jsonl_gz(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, 'wt', encoding='utf-8') as out:
        out.writelines(json.dumps(record) + '\n' for record in records)


def write_nq(home: Path, dev_all: bool = False) -> Path:
    """The NQ sources under ``home/nci/nq320k``: the dev set as five shards, or as nq-dev-all."""
    directory = home / 'nci' / 'nq320k'
    write_jsonl_gz(directory / 'simplified-nq-train.jsonl.gz', [nq_train_record(*example) for example in NQ_TRAIN])
    dev = {example[0]: nq_dev_record(*example) for example in NQ_DEV}
    if dev_all:
        write_jsonl_gz(directory / 'nq-dev-all.jsonl.gz', list(dev.values()))
    else:
        for shard, ids in DEV_SHARDS.items():
            write_jsonl_gz(directory / f'nq-dev-0{shard}.jsonl.gz', [dev[i] for i in ids])
    return directory


LONG_PAGE = 'Line one\r\nLine\ttwo\rthree\n' + 'x' * 11_000
EVIDENCE = {  # archive order, deliberately unsorted
    'Zebra.txt': 'Zebras are African equines.\n',
    'Heroes_(David_Bowie_song).txt': '"Heroes" is a song by David Bowie.\n',
    'Heroes_(david_bowie_song).txt': 'A second page with the same normalised title.\n',
    'Long_page.txt': LONG_PAGE,
    'Café.txt': 'A café is a restaurant.\n',
}
TRIVIA_TRAIN = [
    ('tc_1', 'Which song?', ['Heroes_(david_bowie_song).txt', 'Zebra.txt']),
    ('tc_2', 'Multi\nline?', ['Zebra.txt']),
    ('tc_3', 'Same text?', ['Café.txt']),
    ('tc_4', 'Same text?', ['Long_page.txt', 'Heroes_(David_Bowie_song).txt', 'Heroes_(david_bowie_song).txt']),
    ('tc_5', 'Missing page?', ['Nowhere.txt']),
]
TRIVIA_DEV = [('dev_1', 'Dev question?', ['Café.txt', 'Zebra.txt'])]


def qa_file(questions: list[tuple[str, str, list[str]]]) -> bytes:
    data = [{'Answer': {'Aliases': ['x'], 'NormalizedValue': 'x', 'Type': 'WikipediaEntity', 'Value': 'X'},
             'EntityPages': [{'DocSource': 'TagMe', 'Filename': name, 'Title': name[:-4].replace('_', ' ')}
                             for name in pages],
             'Question': question, 'QuestionId': question_id, 'QuestionSource': 'http://www.triviaquiz.example/',
             'SearchResults': []} for question_id, question, pages in questions]
    return json.dumps({'Data': data, 'Domain': 'Wikipedia', 'VerifiedEval': False, 'Version': 1.0},
                      ensure_ascii=False, indent=1).encode()


def write_trivia(home: Path) -> Path:
    """``home/nci/trivia-qa/triviaqa-rc.tar.gz``."""
    members = [('qa/web-train.json', qa_file([('web_1', 'Web?', ['Zebra.txt'])])),
               ('qa/wikipedia-dev.json', qa_file(TRIVIA_DEV))]
    members += [(f'evidence/wikipedia/{name}', text.encode()) for name, text in list(EVIDENCE.items())[:2]]
    members += [('qa/wikipedia-train.json', qa_file(TRIVIA_TRAIN)), ('evidence/web/Something.txt', b'web page\n')]
    members += [(f'evidence/wikipedia/{name}', text.encode()) for name, text in list(EVIDENCE.items())[2:]]
    path = home / 'nci' / 'trivia-qa' / 'triviaqa-rc.tar.gz'
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, 'w:gz') as archive:
        for directory in ('qa', 'evidence', 'evidence/wikipedia', 'evidence/web'):
            info = tarfile.TarInfo(directory)
            info.type = tarfile.DIRTYPE
            archive.addfile(info)
        for name, content in members:
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return path
