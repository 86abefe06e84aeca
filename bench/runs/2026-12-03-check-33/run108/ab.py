"""Run 108's table: python3 ab.py DIR (the NAME-bench[12].txt files of tq-gpu)."""
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
            rows[(j['preset'], j['B'], j['seq_len'], j['heads'])][build].append(j)
names = ['a2n128', 'a2n144', 'a2n168']
print('| shape (B x seq, HEADS) | base us (splits, regs/programs an SM) | ' +
      ' | '.join(f'{n} / base (splits, regs/SM)' for n in names) + ' |')
print('|---|---|' + '---|' * len(names))
for (p, b, s, h), v in rows.items():
    best = {n: min(j['ms'] for j in js) * 1000 for n, js in v.items()}
    info = lambda n: f"{v[n][0]['splits']}, {v[n][0]['stage1_registers']}/{v[n][0]['stage1_programs_per_sm']}"
    print(f"| {p} {b}x{s}, {h} | {best['base']:.1f} ({info('base')}) | " +
          ' | '.join(f"{best[n] / best['base']:.3f} ({info(n)})" for n in names) + ' |')
