/**
 * The project's own ESLint rules (plugin `local`, loaded by eslint.config.js).
 *
 * `local/descriptive-params`: a parameter of an exported function has a name of more than one
 * letter (`_` and `_x`-style names for unused parameters excepted). Covered: `export function`,
 * `export default function`, `export const f = (...) => ...` / `function (...)`, functions exported
 * later by `export { f }`, and the constructor and non-private methods of an exported class.
 * Destructured parameters are not named by the function and are not checked.
 */
'use strict';

/** The identifiers a parameter binds at its top level: `a`, `a = 1`, `...a`, `private a` (constructor). */
function paramIdentifiers(param) {
  if (!param) return [];
  switch (param.type) {
    case 'Identifier':
      return [param];
    case 'AssignmentPattern':
      return paramIdentifiers(param.left);
    case 'RestElement':
      return paramIdentifiers(param.argument);
    case 'TSParameterProperty':
      return paramIdentifiers(param.parameter);
    default:
      return [];
  }
}

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** @type {import('eslint').Rule.RuleModule} */
const descriptiveParams = {
  meta: {
    type: 'suggestion',
    docs: { description: "Parameters of exported functions and exported classes' methods have descriptive names, not one letter." },
    schema: [],
    messages: {
      oneLetter:
        "Parameter '{{name}}' of exported {{what}} '{{fn}}' is one letter: name it after what it holds (e.g. `manager`, `scope`, `payment`).",
    },
  },
  create(context) {
    const checked = new Set();
    function check(fn, what, name) {
      if (!fn || checked.has(fn)) return;
      checked.add(fn);
      for (const param of fn.params) {
        for (const id of paramIdentifiers(param)) {
          if (id.name.length === 1 && id.name !== '_') {
            context.report({ node: id, messageId: 'oneLetter', data: { name: id.name, what, fn: name } });
          }
        }
      }
    }
    function checkClass(cls) {
      const className = cls.id ? cls.id.name : 'default';
      for (const member of cls.body.body) {
        if (member.type !== 'MethodDefinition' && member.type !== 'TSAbstractMethodDefinition') continue;
        if (member.accessibility === 'private' || (member.key && member.key.type === 'PrivateIdentifier')) continue;
        const key = member.key && member.key.type === 'Identifier' ? member.key.name : '[computed]';
        check(member.value, 'method', `${className}.${key}`);
      }
    }
    function checkDeclaration(decl) {
      if (!decl) return;
      if (decl.type === 'FunctionDeclaration') check(decl, 'function', decl.id ? decl.id.name : 'default');
      else if (decl.type === 'ClassDeclaration' || decl.type === 'ClassExpression') checkClass(decl);
      else if (FUNCTION_TYPES.has(decl.type)) check(decl, 'function', 'default');
      else if (decl.type === 'VariableDeclaration') {
        for (const d of decl.declarations) {
          if (d.id.type === 'Identifier' && d.init && FUNCTION_TYPES.has(d.init.type)) check(d.init, 'function', d.id.name);
        }
      }
    }
    const exportedLater = new Set();
    return {
      ExportNamedDeclaration(node) {
        checkDeclaration(node.declaration);
        if (!node.source) for (const s of node.specifiers) if (s.local.type === 'Identifier') exportedLater.add(s.local.name);
      },
      ExportDefaultDeclaration(node) {
        if (node.declaration.type === 'Identifier') exportedLater.add(node.declaration.name);
        else checkDeclaration(node.declaration);
      },
      'Program:exit'(program) {
        if (exportedLater.size === 0) return;
        for (const stmt of program.body) {
          if (stmt.type === 'FunctionDeclaration' && stmt.id && exportedLater.has(stmt.id.name)) checkDeclaration(stmt);
          else if (stmt.type === 'ClassDeclaration' && stmt.id && exportedLater.has(stmt.id.name)) checkDeclaration(stmt);
          else if (stmt.type === 'VariableDeclaration') {
            for (const d of stmt.declarations) {
              if (d.id.type === 'Identifier' && exportedLater.has(d.id.name) && d.init && FUNCTION_TYPES.has(d.init.type))
                check(d.init, 'function', d.id.name);
            }
          }
        }
      },
    };
  },
};

module.exports = { meta: { name: 'local' }, rules: { 'descriptive-params': descriptiveParams } };
