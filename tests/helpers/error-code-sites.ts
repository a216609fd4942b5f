/**
 * Every error `code` the server can answer, read from the source with the TypeScript compiler
 * (issue 23: the error registry, domain/error-codes.ts, must name them all; spec 7).
 *
 * An error is a `DomainError` (domain/errors.ts); its code is the second argument of its
 * constructor. A function whose parameter reaches that argument (`invalidRequest(code, ...)`,
 * `conflict(code, ...)`, `new IllegalTransition(object, code, ...)`, `transitionTable(object,
 * map, code = \`${object}_state_changed\`)`, a class whose `code` field feeds it, e.g. a provider's
 * `SignRefused`) is an error factory too, found by following the argument back to its parameter,
 * until no new factory appears. At every call of a factory the code argument is evaluated:
 * string literals, templates, conditionals, `const`/`let` variables (all their assignments), a
 * default parameter value (under the call's arguments), the `code` property of an object a call
 * returns, and, last, the checker's literal type. An argument that stays unknown is `unresolved`
 * (the test fails on it unless it re-throws an already answered error: `passthrough`).
 */
import path from 'node:path';
import ts from 'typescript';

/** Where one code is constructed. `via` is the factory called (`DomainError`, `invalidRequest`, ...). */
export interface CodeSite {
  code: string;
  file: string;
  line: number;
  /** The factory called (`DomainError`, `invalidRequest`, ...). */
  via: string;
  /** The error types the construction can carry (empty when the walk cannot tell). */
  types: string[];
  /** The construction's source, on one line. */
  text: string;
}
/** A construction whose code the walk cannot evaluate. */
export interface UnresolvedSite {
  file: string;
  line: number;
  text: string;
}
export interface CodeWalk {
  sites: CodeSite[];
  unresolved: UnresolvedSite[];
  factories: string[];
}

const root = path.resolve(__dirname, '../..');
/** Folders whose code runs in the server (scripts/ and bench/ answer no request). */
const SERVER_DIRS = ['domain', 'entities', 'views', 'lib', 'providers', 'activities', 'workflows', 'api', 'temporal'];

type Val =
  | { kind: 'values'; values: string[] }
  | { kind: 'param'; fn: ts.SignatureDeclaration; index: number; prop?: string }
  | { kind: 'passthrough' }
  | { kind: 'unknown' };
type Bindings = Map<ts.Symbol, { expr: ts.Expression; bindings: Bindings }>;
interface Factory {
  fn: ts.SignatureDeclaration;
  index: number;
  prop?: string;
  types?: string[];
}

const UNKNOWN: Val = { kind: 'unknown' };
const values = (v: string[]): Val => ({ kind: 'values', values: v });

/** Walks the server's source (tsconfig.json) and returns every code site. Takes a few seconds. */
export function walkErrorCodes(): CodeWalk {
  const cfg = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  )!;
  const program = ts.createProgram(cfg.fileNames, cfg.options);
  const checker = program.getTypeChecker();
  const rel = (f: string) => path.relative(root, f).split(path.sep).join('/');
  const files = program.getSourceFiles().filter((sf) => SERVER_DIRS.some((d) => rel(sf.fileName).startsWith(`${d}/`)));

  const domainError = files.find((sf) => rel(sf.fileName) === 'domain/errors.ts')!;
  let base: ts.ConstructorDeclaration | undefined;
  ts.forEachChild(domainError, (n) => {
    if (ts.isClassDeclaration(n) && n.name?.text === 'DomainError') base = n.members.find(ts.isConstructorDeclaration);
  });
  if (!base) throw new Error('DomainError constructor not found');

  // Every call, `new` and `super(...)` of the server, by the declaration it resolves to.
  const callsOf = new Map<ts.Node, Array<ts.CallExpression | ts.NewExpression>>();
  const assignments = new Map<ts.Symbol, ts.Expression[]>();
  for (const sf of files) {
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
        const decl = checker.getResolvedSignature(n)?.declaration;
        if (decl) callsOf.set(decl, [...(callsOf.get(decl) ?? []), n]);
      } else if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(n.left)) {
        const s = checker.getSymbolAtLocation(n.left);
        if (s) assignments.set(s, [...(assignments.get(s) ?? []), n.right]);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }

  const strip = (e: ts.Expression): ts.Expression => {
    while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e))
      e = e.expression;
    return e;
  };
  const union = (vs: Val[]): Val => {
    const out: string[] = [];
    for (const v of vs) {
      if (v.kind === 'passthrough') continue;
      if (v.kind !== 'values') return UNKNOWN;
      out.push(...v.values);
    }
    return values([...new Set(out)]);
  };
  const product = (parts: Val[]): Val => {
    let acc = [''];
    for (const p of parts) {
      if (p.kind !== 'values') return UNKNOWN;
      acc = acc.flatMap((a) => p.values.map((v) => a + v));
    }
    return values(acc);
  };
  const literalType = (e: ts.Expression): Val => {
    const t = checker.getTypeAtLocation(e);
    const ts_ = t.isUnion() ? t.types : [t];
    return ts_.every((x) => x.isStringLiteral()) ? values(ts_.map((x) => (x as ts.StringLiteralType).value)) : UNKNOWN;
  };
  const isDomainErrorType = (t: ts.Type): boolean => {
    const d = t.getSymbol()?.valueDeclaration;
    if (d && ts.isClassDeclaration(d) && d.members.includes(base!)) return true;
    return t.isClassOrInterface() && checker.getBaseTypes(t).some(isDomainErrorType);
  };
  /** The function a parameter belongs to, and its position. */
  const paramOf = (d: ts.Declaration): { fn: ts.SignatureDeclaration; index: number } | null => {
    if (!ts.isParameter(d) || !ts.isIdentifier(d.name)) return null;
    const fn = d.parent as ts.SignatureDeclaration;
    return { fn, index: fn.parameters.indexOf(d) };
  };

  /** The value of `e`, with `bindings` giving the arguments of the calls being followed. */
  const evaluate = (e0: ts.Expression, bindings: Bindings, depth = 0): Val => {
    if (depth > 12) return UNKNOWN;
    const e = strip(e0);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return values([e.text]);
    if (ts.isConditionalExpression(e))
      return union([evaluate(e.whenTrue, bindings, depth + 1), evaluate(e.whenFalse, bindings, depth + 1)]);
    if (ts.isBinaryExpression(e) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(e.operatorToken.kind)) {
      return union([evaluate(e.left, bindings, depth + 1), evaluate(e.right, bindings, depth + 1)]);
    }
    if (ts.isTemplateExpression(e)) {
      const parts: Val[] = [values([e.head.text])];
      for (const s of e.templateSpans) {
        const v = evaluate(s.expression, bindings, depth + 1);
        parts.push(v.kind === 'values' ? v : literalType(s.expression), values([s.literal.text]));
      }
      return product(parts);
    }
    if (ts.isIdentifier(e)) {
      const sym = checker.getSymbolAtLocation(e);
      const d = sym?.valueDeclaration;
      if (sym && d) {
        const bound = bindings.get(sym);
        if (bound) return evaluate(bound.expr, bound.bindings, depth + 1);
        const p = paramOf(d);
        if (p) return { kind: 'param', ...p };
        if (ts.isVariableDeclaration(d) && d.initializer) {
          return union([d.initializer, ...(assignments.get(sym) ?? [])].map((x) => evaluate(x, bindings, depth + 1)));
        }
      }
    }
    if (ts.isPropertyAccessExpression(e)) {
      if (isDomainErrorType(checker.getTypeAtLocation(e.expression))) return { kind: 'passthrough' };
      const prop = e.name.text;
      const d = checker.getSymbolAtLocation(e.name)?.valueDeclaration;
      const p = d && paramOf(d); // a constructor parameter property (`readonly code: string`)
      if (p) return { kind: 'param', ...p };
      const owner = evaluateProp(e.expression, prop, bindings, depth + 1);
      if (owner.kind !== 'unknown') return owner;
    }
    return literalType(e);
  };

  /** The value of property `prop` of the object `e` evaluates to (object literals, returns of a called function). */
  const evaluateProp = (e0: ts.Expression, prop: string, bindings: Bindings, depth = 0): Val => {
    if (depth > 12) return UNKNOWN;
    const e = strip(e0);
    if (ts.isObjectLiteralExpression(e)) {
      const pa = e.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText() === prop);
      return pa ? evaluate(pa.initializer, bindings, depth + 1) : UNKNOWN;
    }
    if (e.kind === ts.SyntaxKind.NullKeyword) return values([]);
    if (ts.isConditionalExpression(e))
      return union([evaluateProp(e.whenTrue, prop, bindings, depth + 1), evaluateProp(e.whenFalse, prop, bindings, depth + 1)]);
    if (ts.isIdentifier(e)) {
      const sym = checker.getSymbolAtLocation(e);
      const d = sym?.valueDeclaration;
      if (!sym || !d) return UNKNOWN;
      const bound = bindings.get(sym);
      if (bound) return evaluateProp(bound.expr, prop, bound.bindings, depth + 1);
      const p = paramOf(d);
      if (p) return { kind: 'param', ...p, prop };
      if (ts.isVariableDeclaration(d) && d.initializer) {
        return union([d.initializer, ...(assignments.get(sym) ?? [])].map((x) => evaluateProp(x, prop, bindings, depth + 1)));
      }
      return UNKNOWN;
    }
    if (ts.isCallExpression(e)) {
      const fn = checker.getResolvedSignature(e)?.declaration;
      if (!fn || !ts.isFunctionLike(fn) || !('body' in fn) || !fn.body) return UNKNOWN;
      const callee = bind(fn, e, bindings);
      if (!ts.isBlock(fn.body)) return evaluateProp(fn.body as ts.Expression, prop, callee, depth + 1);
      const returns: Val[] = [];
      const visit = (n: ts.Node): void => {
        if (ts.isFunctionLike(n)) return;
        if (ts.isReturnStatement(n) && n.expression) returns.push(evaluateProp(n.expression, prop, callee, depth + 1));
        ts.forEachChild(n, visit);
      };
      ts.forEachChild(fn.body, visit);
      return union(returns);
    }
    return UNKNOWN;
  };

  /** Bindings of `fn`'s parameters to the arguments of `call`. */
  const bind = (fn: ts.SignatureDeclaration, call: ts.CallExpression | ts.NewExpression, outer: Bindings): Bindings => {
    const b: Bindings = new Map();
    const args = call.arguments ?? [];
    fn.parameters.forEach((p, i) => {
      const s = ts.isIdentifier(p.name) ? checker.getSymbolAtLocation(p.name) : undefined;
      if (s && args[i]) b.set(s, { expr: args[i], bindings: outer });
    });
    return b;
  };

  const name = (fn: ts.SignatureDeclaration): string => {
    if (ts.isConstructorDeclaration(fn)) return (fn.parent as ts.ClassDeclaration).name?.text ?? 'class';
    if (fn.name) return fn.name.getText();
    const p = fn.parent;
    return ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) ? p.name.getText() : '(anonymous)';
  };
  const where = (n: ts.Node) => {
    const sf = n.getSourceFile();
    return { file: rel(sf.fileName), line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1 };
  };

  const sites: CodeSite[] = [];
  const unresolved: UnresolvedSite[] = [];
  const seen = new Set<string>();
  const queue: Factory[] = [{ fn: base, index: 1 }];
  const key = (f: Factory) => `${where(f.fn).file}:${f.fn.pos}:${f.index}:${f.prop ?? ''}`;
  seen.add(key(queue[0]));
  while (queue.length) {
    const f = queue.shift()!;
    for (const call of callsOf.get(f.fn) ?? []) {
      const arg = call.arguments?.[f.index];
      const param = f.fn.parameters[f.index];
      let v: Val;
      if (arg) v = f.prop ? evaluateProp(arg, f.prop, new Map()) : evaluate(arg, new Map());
      else if (param?.initializer) v = evaluate(param.initializer, bind(f.fn, call, new Map()));
      else v = UNKNOWN;
      let types = f.types;
      if (f.fn === base) {
        const t = call.arguments?.[0] ? evaluate(call.arguments[0], new Map()) : UNKNOWN;
        types = t.kind === 'values' ? t.values : undefined;
      }
      if (v.kind === 'param') {
        const next: Factory = { fn: v.fn, index: v.index, prop: v.prop, types };
        if (!seen.has(key(next))) {
          seen.add(key(next));
          queue.push(next);
        }
      } else if (v.kind === 'values') {
        const text = call.getText().replace(/\s+/g, ' ').slice(0, 400);
        for (const code of v.values) sites.push({ code, ...where(call), via: name(f.fn), types: types ?? [], text });
      } else if (v.kind === 'unknown') {
        unresolved.push({ ...where(call), text: (arg ?? call).getText().slice(0, 120) });
      }
    }
  }
  const factories = [...seen].map((k) => k.split(':')[0]);
  return { sites, unresolved, factories };
}
