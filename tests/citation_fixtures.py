"""Small citation recommendation collections in the upstream formats (Gu et al. 2022's release and ArSyTa), written
under a temporary IR_DATASETS_HOME (tests/datasets/)."""
import json
from pathlib import Path

N_PAPERS, N_CONTEXTS = 20, 30
SPLITS = {'train': range(0, 20), 'val': range(20, 25), 'test': range(25, 30)}
GU_FILES = {'train': 'train.json', 'val': 'val.json', 'test': 'test.json'}
ARSYTA_FILES = {'train': 'train_data.json', 'val': 'val_data.json', 'test': 'test_data.json'}


def context(i: int, arsyta: bool) -> dict:
    """Context C<i>: cited slot TARGETCIT, citing paper P<i % 5>, cited paper P<10 + i % 10>."""
    record = {'masked_text': f'as shown by TARGETCIT in context {i}', 'context_id': f'C{i:02d}',
              'citing_id': f'P{i % 5}', ('ref_id' if arsyta else 'refid'): f'P{10 + i % 10}'}
    if arsyta:
        record['heading'] = f'Section {i % 3}'
    return record


def paper(i: int, arsyta: bool) -> dict:
    """Paper P<i>; P5 has no abstract; ArSyTa's P7 has its categories as one string."""
    record = {'title': f'Title {i}'}
    if i != 5:
        record['abstract'] = f'Abstract {i}'
    if arsyta:
        record['categories'] = 'cs.CL cs.LG' if i == 7 else ['cs.IR']
    return record


def write_collection(home: Path, name: str, arsyta: bool = False) -> Path:
    """Write contexts.json (in reverse id order), papers.json and the split files of ``name``;
    test context C27 has a second, duplicated positive id."""
    folder = home / 'citation-rec' / name
    folder.mkdir(parents=True)
    contexts = {f'C{i:02d}': context(i, arsyta) for i in reversed(range(N_CONTEXTS))}
    (folder / 'contexts.json').write_text(json.dumps(contexts))
    (folder / 'papers.json').write_text(json.dumps({f'P{i}': paper(i, arsyta) for i in range(N_PAPERS)}))
    for split, file_name in (ARSYTA_FILES if arsyta else GU_FILES).items():
        items = [{'context_id': f'C{i:02d}', 'positive_ids': [f'P{10 + i % 10}']} for i in SPLITS[split]]
        if split == 'test':
            items[2]['positive_ids'] += ['P3', 'P3']
        (folder / file_name).write_text(json.dumps(items))
    return folder

