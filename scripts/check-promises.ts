/**
 * Finds promises nobody waits for: a call whose value is a promise, used as a statement on its
 * own (`save(db)` instead of `await save(db)`). Every query is asynchronous (decision 0038), and
 * a write not awaited would run after the code that relies on it, or fail with no one to hear.
 * A promise meant to run on its own says so with `void`. Exits 1 and lists each place found.
 *
 *   bun scripts/check-promises.ts [files…]   (default: the whole project, tsconfig.json)
 */
import ts from "typescript";

const configPath = ts.findConfigFile(process.cwd(), ts.sys.fileExists, "tsconfig.json")!;
const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, process.cwd());
const only = process.argv.slice(2).map((f) => ts.sys.resolvePath(f));
const program = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, noEmit: true } });
const checker = program.getTypeChecker();

/** Whether a type is a promise or any other thenable (drizzle's query builders are). */
function isThenable(type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some(isThenable);
  const then = type.getProperty("then");
  if (!then) return false;
  const thenType = checker.getTypeOfSymbol(then);
  return thenType.getCallSignatures().length > 0;
}

const found: string[] = [];
const report = (file: ts.SourceFile, node: ts.Node, why: string) => {
  const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
  found.push(`${file.fileName.replace(`${process.cwd()}/`, "")}:${line + 1}:${character + 1}: ${why}: ${node.getText(file).split("\n")[0]!.slice(0, 100)}`);
};
/**
 * A call, or a constant set to a call's value: what an async function's caller that forgot to
 * wait holds. (A promise kept on purpose, in a cache or a variable typed as one, is not flagged.)
 */
function madeByCall(node: ts.Expression): boolean {
  if (ts.isCallExpression(node)) return true;
  if (!ts.isIdentifier(node)) return false;
  const declaration = checker.getSymbolAtLocation(node)?.valueDeclaration;
  if (!declaration || !ts.isVariableDeclaration(declaration) || declaration.type || !declaration.initializer) return false;
  let initializer = declaration.initializer;
  while (ts.isParenthesizedExpression(initializer)) initializer = initializer.expression;
  return ts.isCallExpression(initializer);
}

/** A promise where a value is meant: a condition, a negation, a comparison, a `??` or `||`. */
const asValue = (file: ts.SourceFile, node: ts.Expression | undefined) => {
  if (!node) return;
  let inner = node;
  while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
  if (!madeByCall(inner)) return;
  if (isThenable(checker.getTypeAtLocation(inner))) report(file, inner, "a promise used as a value");
};
const COMPARING = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionToken,
]);
for (const file of program.getSourceFiles()) {
  if (file.isDeclarationFile || file.fileName.includes("/node_modules/")) continue;
  if (only.length && !only.includes(file.fileName)) continue;
  const visit = (node: ts.Node) => {
    if (ts.isExpressionStatement(node)) {
      let expression = node.expression;
      while (ts.isParenthesizedExpression(expression)) expression = expression.expression;
      const floating =
        (ts.isCallExpression(expression) || ts.isNewExpression(expression) || ts.isPropertyAccessExpression(expression)) &&
        isThenable(checker.getTypeAtLocation(expression));
      if (floating) report(file, expression, "not awaited");
    }
    if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node)) && ts.isExpression(node as ts.Node)) {
      // An async function handed to a caller that expects nothing back: the caller goes on
      // before it ends, and hears nothing of its failure (`check: async (b) => …` for `check(b): void`).
      const expected = checker.getContextualType(node as ts.Expression);
      const signatures = expected?.getCallSignatures() ?? [];
      const returnsPromise = checker.getSignatureFromDeclaration(node as ts.SignatureDeclaration)?.getReturnType();
      if (signatures.length && returnsPromise && isThenable(returnsPromise) && signatures.every((sig) => sig.getReturnType().flags & ts.TypeFlags.Void)) report(file, node, "an async function where the caller does not wait for it");
    }
    if (ts.isMethodDeclaration(node) && ts.isObjectLiteralExpression(node.parent)) {
      const literal = checker.getContextualType(node.parent);
      const property = ts.isIdentifier(node.name) ? literal?.getProperty(node.name.text) : undefined;
      const signatures = property ? checker.getTypeOfSymbol(property).getCallSignatures() : [];
      const returns = checker.getSignatureFromDeclaration(node)?.getReturnType();
      if (signatures.length && returns && isThenable(returns) && signatures.every((sig) => sig.getReturnType().flags & ts.TypeFlags.Void)) report(file, node, "an async method where the caller does not wait for it");
    }
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      // A promise handed where any value goes (`json(preferencesOf(…))` answers `{}`).
      const signature = checker.getResolvedSignature(node);
      for (const [i, argument] of (node.arguments ?? []).entries()) {
        const parameter = signature?.parameters[Math.min(i, signature.parameters.length - 1)];
        if (!parameter || !madeByCall(argument)) continue;
        const expected = checker.getTypeOfSymbolAtLocation(parameter, node);
        // Only a promise for sure: JSX elements are `string | Promise<string>` and are handed on as such.
        const type = checker.getTypeAtLocation(argument);
        const onlyPromise = type.isUnion() ? type.types.every(isThenable) : isThenable(type);
        if (expected.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any) && onlyPromise) report(file, argument, "a promise handed on as a value");
      }
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "expect" && node.arguments[0]) {
      // `expect(load()).toEqual(x)` compares a promise; `.resolves` and `.rejects` wait for it.
      const then = ts.isPropertyAccessExpression(node.parent) ? node.parent.name.text : "";
      const type = checker.getTypeAtLocation(node.arguments[0]);
      const onlyPromise = type.isUnion() ? type.types.every(isThenable) : isThenable(type);
      if (onlyPromise && then !== "resolves" && then !== "rejects") report(file, node.arguments[0], "a promise given to expect without .resolves or .rejects");
    }
    if (ts.isIfStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node)) asValue(file, node.expression);
    if (ts.isConditionalExpression(node)) asValue(file, node.condition);
    if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken) asValue(file, node.operand);
    if (ts.isBinaryExpression(node) && COMPARING.has(node.operatorToken.kind)) {
      // `a && b` and `a || b` may hand a promise on (`return x || load()`): only the left side is a test.
      asValue(file, node.left);
      if (node.operatorToken.kind !== ts.SyntaxKind.AmpersandAmpersandToken && node.operatorToken.kind !== ts.SyntaxKind.BarBarToken && node.operatorToken.kind !== ts.SyntaxKind.QuestionQuestionToken) asValue(file, node.right);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

if (found.length) {
  console.error(`${found.length} promise(s) not awaited (await it, return it, or mark it \`void\` when it is meant to run on its own):`);
  for (const line of found) console.error(`  ${line}`);
  process.exit(1);
}
console.log("every promise is awaited or marked void");
