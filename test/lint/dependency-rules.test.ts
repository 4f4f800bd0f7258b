// The dependency check of `npm run lint` (.dependency-cruiser.cjs) fails on an import cycle and on
// an import that points up the layers (domain -> http, a resource -> the server, ...), and passes on
// this tree. Checked on a small tree of its own, so the rules are seen to bite.
import { mkdirSync, writeFileSync } from 'node:fs';

import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { exec as run } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const CRUISE = join(PROJECT_ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(PROJECT_ROOT, '.dependency-cruiser.cjs');

async function cruise(files: Record<string, string>): Promise<{ code: number; out: string }> {
  const dir = tempDir('tusk-layers-');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true } }),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return run(CRUISE, ['src', '--config', CONFIG, '--output-type', 'err'], { cwd: dir }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
}

describe('the dependency rules of src/', () => {
  it('pass on imports that point down the layers', async () => {
    const r = await cruise({
      'src/core/errors.ts': 'export const e = 1;\n',
      'src/domain/a.ts': "import { e } from '../core/errors.js';\nexport const a = e;\n",
      'src/http/b.ts': "import { a } from '../domain/a.js';\nexport const b = a;\n",
    });
    expect(r.code, r.out).toBe(0);
  });

  it('fail on an import cycle', async () => {
    const r = await cruise({
      'src/domain/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/domain/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    });
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/no-circular/);
  });

  it('fail on an upward import: the domain importing the HTTP layer, a resource importing the server', async () => {
    const domain = await cruise({
      'src/http/errors.ts': 'export const e = 1;\n',
      'src/domain/a.ts': "import { e } from '../http/errors.js';\nexport const a = e;\n",
    });
    expect(domain.code).not.toBe(0);
    expect(domain.out).toMatch(/layer-domain/);
    const app = await cruise({
      'src/server.ts': 'export const s = 1;\n',
      'src/resources/x/routes.ts': "import { s } from '../../server.js';\nexport const c = s;\n",
    });
    expect(app.out).toMatch(/layer-resources/);
  });

  it('fail on an import between the control plane and the composition, which stand side by side', async () => {
    const side = await cruise({
      'src/compose.ts': 'export const c = 1;\n',
      'src/control/a.ts': "import { c } from '../compose.js';\nexport const a = c;\n",
    });
    expect(side.code).not.toBe(0);
    expect(side.out).toMatch(/layer-compose-control-docs/);
  });

  it("fail when record/, import/ or replay/ reach into the stand-in's store, or import and replay use each other", async () => {
    const store = 'export const s = 1;\n';
    for (const name of ['record', 'import', 'replay']) {
      const r = await cruise({
        'src/accounts/home.ts': store,
        [`src/${name}/a.ts`]: "import { s } from '../accounts/home.js';\nexport const a = s;\n",
      });
      expect(r.code, r.out).not.toBe(0);
      expect(r.out).toMatch(new RegExp(`layer-${name}`));
    }
    const across = await cruise({
      'src/replay/a.ts': 'export const a = 1;\n',
      'src/import/b.ts': "import { a } from '../replay/a.js';\nexport const b = a;\n",
    });
    expect(across.out).toMatch(/layer-import/);
    const allowed = await cruise({
      'src/core/errors.ts': 'export const e = 1;\n',
      'src/record/har.ts': "import { e } from '../core/errors.js';\nexport const h = e;\n",
      'src/replay/a.ts': "import { h } from '../record/har.js';\nexport const a = h;\n",
      'src/proxy/p.ts': "import { h } from '../record/har.js';\nexport const p = h;\n",
    });
    expect(allowed.code, allowed.out).toBe(0);
  });
});
