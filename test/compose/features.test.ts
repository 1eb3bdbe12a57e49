// The operator feature modules (src/compose/features/, listed by src/compose/operator-features.ts): each
// declares config keys the config file's schema has, admin paths the route table serves, and provides
// what no other feature provides. Their wiring is tested through startOperatorFeatures (operator-features/).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_ROUTES } from '../../src/admin/routes.js';
import { OPERATOR_FEATURES } from '../../src/compose/operator-features.js';
import { ApplicationFileSchema } from '../../src/schemas/applications.js';
import { ConfigFileSchema } from '../../src/schemas/config.js';

type Node = { properties?: Record<string, Node> };

/** Whether the schema has `key` (`a.b`, or `applications[].c` for an application's key). */
function hasKey(key: string): boolean {
  const app = /^applications\[\]\.(.+)$/.exec(key);
  let node: Node | undefined = (app ? ApplicationFileSchema : ConfigFileSchema) as Node;
  for (const part of (app ? app[1]! : key).split('.')) node = node?.properties?.[part];
  return node !== undefined;
}

describe('the operator feature modules', () => {
  it('have names of their own', () => {
    const names = OPERATOR_FEATURES.map((feature) => feature.name);
    assert.deepEqual([...new Set(names)], names);
  });

  it("declare only config keys of the config file's schema", () => {
    const unknown = OPERATOR_FEATURES.flatMap((f) =>
      f.configKeys.filter((key) => !hasKey(key)).map((k) => `${f.name}: ${k}`),
    );
    assert.deepEqual(unknown, []);
  });

  it('declare only admin paths of the route table, each path by one feature', () => {
    const paths = new Set(ADMIN_ROUTES.map((route) => route.path));
    const declared = OPERATOR_FEATURES.flatMap((feature) => feature.routes);
    assert.deepEqual(
      declared.filter((path) => !paths.has(path)),
      [],
    );
    assert.deepEqual([...new Set(declared)], declared);
  });

  it('provide each thing once', () => {
    const provided = OPERATOR_FEATURES.flatMap((feature) => feature.provides);
    assert.deepEqual([...new Set(provided)], provided);
  });
});
