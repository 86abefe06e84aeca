"""Run 107's table: python3 ab.py DIR (the *-bench[12].txt files of tq-gpu --merge 0,1)."""
import collections
import glob
import json
import sys

rows = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + '/*-bench?.txt')):
    build = f.split('/')[-1].rsplit('-bench', 1)[0]
    for line in open(f):
        if line.startswith('TQ-JSON '):
            j = json.loads(line[8:])
            assert j['check'], line
            key = (j['preset'], j['B'], j['seq_len'], j['heads'])
            rows[key][(build, j['merged'])].append((j['ms'] * 1000, j['splits']))
print('| shape (B x seq, HEADS) | splits (base, a2) | base us | base.merge / base | '
      'a2r152 / base | a2r168 / base | a2r168.merge / base |')
print('|---|---|---|---|---|---|---|')
for (p, b, s, h), v in rows.items():
    base = min(t for t, _ in v[('base', False)])
    ratio = lambda k: '%.2f' % (min(t for t, _ in v[k]) / base)
    print(f"| {p} {b}x{s}, {h} | {v[('base', False)][0][1]}, {v[('a2r168', False)][0][1]} | "
          f"{base:.1f} | {ratio(('base', True))} | {ratio(('a2r152', False))} | "
          f"{ratio(('a2r168', False))} | {ratio(('a2r168', True))} |")
