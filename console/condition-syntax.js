// Checks a condition expression as it is typed, with the grammar the server parses
// (Sources/ConfigCore/Conditions: ConditionLexer, ConditionParser, ConditionParser+Rules), so a
// mistake shows beside the field at once. The server still decides: this check knows the
// shape of every rule, not every value (time zones, regular expressions, version strings).

const platforms = ["android", "ios", "web"];
const stringMethods = ["contains", "notContains", "exactlyMatches", "matches"];
const comparisons = ["<", "<=", "==", "!=", ">", ">="];
const audienceMethods = ["inAtLeastOne", "inAll", "notInAtLeastOne", "notInAll"];
const elements = ["app.id", "app.version", "app.build", "app.operatingSystemAndVersion", "app.browserAndVersion",
  "app.userProperty", "app.customSignal", "device.os", "device.country", "device.language",
  "app.firebaseInstallationId", "app.audiences", "app.importedSegments", "app.firstOpenTimestamp", "dateTime",
  "device.dateTime", "percent"];

class SyntaxProblem extends Error {
  constructor(message, offset) {
    super(message);
    this.offset = offset;
  }
}

function tokenize(source) {
  const tokens = [];
  let at = 0;
  const push = (kind, start, value) => tokens.push({ kind, value, offset: start });
  while (at < source.length) {
    const character = source[at];
    if (/\s/.test(character)) {
      at += 1;
      continue;
    }
    const start = at;
    const two = source.slice(at, at + 2);
    if ("()[],.".includes(character)) {
      push(character, start);
      at += 1;
    } else if (two === "&&" || two === "||") {
      push(two, start);
      at += 2;
    } else if (character === "&" || character === "|") {
      throw new SyntaxProblem(`expected '${character}${character}'`, start);
    } else if (character === "=") {
      if (source[at + 1] !== "=") throw new SyntaxProblem("expected '==' (a single '=' is not an operator)", start);
      push("cmp", start, "==");
      at += 2;
    } else if (character === "!") {
      if (source[at + 1] === "=") {
        push("cmp", start, "!=");
        at += 2;
      } else {
        push("!", start);
        at += 1;
      }
    } else if (character === "<" || character === ">") {
      const symbol = source[at + 1] === "=" ? `${character}=` : character;
      push("cmp", start, symbol);
      at += symbol.length;
    } else if (character === "'" || character === '"') {
      let value = "";
      at += 1;
      while (at < source.length && source[at] !== character) {
        if (source[at] === "\\" && "\\'\"".includes(source[at + 1] ?? "x")) at += 1;
        value += source[at];
        at += 1;
      }
      if (at >= source.length) throw new SyntaxProblem(`unterminated string (missing closing ${character})`, start);
      at += 1;
      push("string", start, value);
    } else if (/[A-Za-z_]/.test(character)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(at))[0];
      push("identifier", start, match);
      at += match.length;
    } else if (/[0-9]/.test(character) || (character === "-" && /[0-9]/.test(source[at + 1] ?? ""))) {
      const match = /^-?[0-9]+(\.[0-9]+)?/.exec(source.slice(at))[0];
      push("number", start, match);
      at += match.length;
    } else {
      throw new SyntaxProblem(`unexpected character '${character}'`, start);
    }
  }
  push("end", source.length);
  return tokens;
}

function quoted(token) {
  switch (token.kind) {
    case "identifier": return `'${token.value}'`;
    case "string": return `string '${token.value}'`;
    case "number": return `number ${token.value}`;
    case "cmp": return `'${token.value}'`;
    case "end": return "end of expression";
    default: return `'${token.kind}'`;
  }
}

/** A recursive-descent reading of one expression; `server` limits it to what server templates take. */
class Parser {
  constructor(source, server) {
    this.tokens = tokenize(source);
    this.index = 0;
    this.server = server;
  }

  get current() { return this.tokens[this.index]; }

  peek(ahead) { return this.tokens[Math.min(this.index + ahead, this.tokens.length - 1)]; }

  advance() {
    const token = this.current;
    if (this.index < this.tokens.length - 1) this.index += 1;
    return token;
  }

  take(kind, value) {
    if (this.current.kind !== kind || (value !== undefined && this.current.value !== value)) return false;
    this.advance();
    return true;
  }

  fail(message, token = this.current) {
    throw new SyntaxProblem(message, token.offset);
  }

  expect(kind, what) {
    if (!this.take(kind)) this.fail(`expected ${what}, found ${quoted(this.current)}`);
  }

  string(what) {
    if (this.current.kind !== "string") this.fail(`expected ${what} (a quoted string), found ${quoted(this.current)}`);
    return this.advance();
  }

  stringList(what) {
    this.expect("[", `'[' to start the list of ${what}`);
    let count = 0;
    do {
      if (this.current.kind === "]" && count === 0) this.fail(`the list of ${what} is empty`);
      this.string(`a value in the list of ${what}`);
      count += 1;
    } while (this.take(","));
    this.expect("]", `']' after the list of ${what}`);
  }

  expression() {
    if (this.current.kind === "end") this.fail("empty expression");
    this.or();
    if (this.current.kind !== "end") this.fail(`unexpected ${quoted(this.current)}; expected '&&', '||' or the end`);
  }

  or() {
    do this.and(); while (this.take("||"));
  }

  and() {
    do this.unary(); while (this.take("&&"));
  }

  unary() {
    const token = this.current;
    if (token.kind === "!") {
      if (this.server) this.fail("'!' is not supported in server templates");
      this.advance();
      return this.unary();
    }
    if (token.kind === "(") {
      this.advance();
      this.or();
      if (!this.take(")")) this.fail(`expected ')' to close the '(' at offset ${token.offset}, found ${quoted(this.current)}`);
      return undefined;
    }
    if (token.kind === "identifier" && (token.value === "true" || token.value === "false")) return this.advance();
    if (token.kind === "identifier") return this.rule();
    if (token.kind === "end") return this.fail("unexpected end of expression; expected a condition");
    return this.fail(`expected a condition, '(' or '!', found ${quoted(token)}`);
  }

  /** `app.version`, `app.customSignal['k']`, `app.audiences.inAll`: the element and what follows it. */
  reference() {
    const start = this.current;
    const segments = [this.advance()];
    while (this.current.kind === "." && this.peek(1).kind === "identifier") {
      this.advance();
      segments.push(this.advance());
    }
    for (let count = segments.length; count > 0; count -= 1) {
      const name = segments.slice(0, count).map((token) => token.value).join(".");
      if (!elements.includes(name)) continue;
      if (segments.length > count + 1) this.fail(`unexpected '.${segments[count + 1].value}' after .${segments[count].value}`, segments[count + 1]);
      const reference = { name, token: start, method: segments[count] };
      if (name === "app.userProperty" || name === "app.customSignal") this.key(reference);
      return reference;
    }
    return this.fail(`unknown element '${segments.map((token) => token.value).join(".")}'`, start);
  }

  key(reference) {
    if (reference.method || this.current.kind !== "[") this.fail(`expected ['key'] after ${reference.name}`, reference.method);
    this.advance();
    const key = this.string("a key");
    if (key.value === "") this.fail(`the key of ${reference.name} is empty`, key);
    this.expect("]", "']' after the key");
    if (this.take(".")) {
      const token = this.current;
      if (token.kind !== "identifier" && token.kind !== "cmp") this.fail(`expected a method name after '.', found ${quoted(token)}`);
      reference.method = this.advance();
    }
  }

  rule() {
    if (this.current.value === "version" && this.peek(1).kind === "(") return this.versionFunction();
    const reference = this.reference();
    const noMethod = () => {
      if (reference.method) this.fail(`${reference.name} has no method '${reference.method.value}'`, reference.method);
    };
    if (this.server && reference.name !== "percent" && reference.name !== "app.customSignal") {
      this.fail("only percent and app.customSignal rules are supported in server templates", reference.token);
    }
    switch (reference.name) {
      case "device.os": {
        noMethod();
        if (this.current.kind !== "cmp" || !["==", "!="].includes(this.current.value)) this.fail(`expected '==' or '!=' after device.os, found ${quoted(this.current)}`);
        this.advance();
        const platform = this.string("a platform");
        if (!platforms.includes(platform.value.toLowerCase())) this.fail(`unknown platform '${platform.value}' (expected 'android', 'ios' or 'web')`, platform);
        return undefined;
      }
      case "device.country": case "device.language": case "app.firebaseInstallationId":
        noMethod();
        if (!this.take("identifier", "in")) this.fail(`expected 'in' after ${reference.name}, found ${quoted(this.current)}`);
        return this.stringList("values");
      case "app.audiences": case "app.importedSegments":
        if (!reference.method || !audienceMethods.includes(reference.method.value)) {
          this.fail(`expected .inAtLeastOne, .inAll, .notInAtLeastOne or .notInAll after ${reference.name}`, reference.method);
        }
        this.expect("(", `'(' after .${reference.method.value}`);
        this.stringList("names");
        return this.expect(")", "')' after the list");
      case "app.firstOpenTimestamp": case "dateTime": case "device.dateTime":
        noMethod();
        return this.dateRule(reference);
      case "percent":
        noMethod();
        return this.percentRule();
      default:
        return this.valueRule(reference);
    }
  }

  valueRule(reference) {
    const keyed = reference.name === "app.userProperty" || reference.name === "app.customSignal";
    if (!keyed && !reference.method && this.current.kind === "." && this.peek(1).kind === "cmp") {
      this.advance();
      reference.method = this.advance();
    }
    if (reference.method) return this.methodCall(reference);
    const token = this.current;
    if (this.take("identifier", "in")) return this.stringList("values");
    if (token.kind !== "cmp") {
      return this.fail(`expected an operator after ${reference.name} (==, !=, in, or a method such as .contains([...])), found ${quoted(token)}`);
    }
    this.advance();
    if (this.current.kind === "string" && (token.value === "==" || token.value === "!=")) {
      if (this.server && token.value === "!=") this.fail("'!=' on app.customSignal is not supported in server templates", token);
      return this.advance();
    }
    if (this.current.kind === "number" && keyed) return this.advance();
    if (this.current.kind === "string" || this.current.kind === "number") {
      if (keyed) this.fail(`expected a number after '${token.value}' (compare versions with version(${reference.name}) ${token.value} '1.0')`);
      this.fail(`expected '.' before '${token.value}': compare with ${reference.name}.${token.value}(['1.0'])`, token);
    }
    return this.fail(`expected a value after '${token.value}', found ${quoted(this.current)}`);
  }

  methodCall(reference) {
    const name = reference.method.value;
    if (!stringMethods.includes(name) && !comparisons.includes(name)) {
      this.fail(`${reference.name} has no method '${name}' (expected contains, notContains, exactlyMatches, matches or a comparison such as .>=)`, reference.method);
    }
    this.expect("(", `'(' after .${name}`);
    this.stringList("values");
    this.expect(")", "')' after the list");
  }

  versionFunction() {
    this.advance();
    this.advance();
    const reference = this.reference();
    if (!["app.version", "app.build", "app.userProperty", "app.customSignal"].includes(reference.name) || reference.method) {
      this.fail("version() takes app.version, app.build, app.userProperty['k'] or app.customSignal['k']", reference.token);
    }
    this.expect(")", `')' after version(${reference.name}`);
    if (this.current.kind !== "cmp") this.fail(`expected a comparison after version(...), found ${quoted(this.current)}`);
    this.advance();
    this.string("a version");
  }

  dateRule(reference) {
    const token = this.current;
    if (token.kind !== "cmp" || token.value === "==" || token.value === "!=") {
      this.fail(`expected '<', '<=', '>' or '>=' after ${reference.name}, found ${quoted(token)}`);
    }
    this.advance();
    this.take("identifier", "dateTime");
    this.expect("(", "'(' before the date");
    const date = this.string("a date");
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?/.test(date.value)) this.fail(`'${date.value}' is not a date such as '2026-01-31T09:00:00'`, date);
    if (this.take(",")) this.string("a time zone");
    this.expect(")", "')' after the date");
  }

  percentRule() {
    if (this.take("(")) {
      const seed = this.string("a seed");
      if (!/^[A-Za-z0-9._-]{0,32}$/.test(seed.value)) this.fail(`invalid percent seed '${seed.value}': up to 32 of A-Z, a-z, 0-9, '-', '_', '.'`, seed);
      this.expect(")", "')' after the seed");
    }
    const token = this.current;
    if (token.kind === "cmp" && (token.value === "<=" || token.value === ">")) {
      this.advance();
      return this.percentage();
    }
    if (this.take("identifier", "between")) {
      const lower = this.percentage();
      if (!this.take("identifier", "and")) this.fail(`expected 'and', found ${quoted(this.current)}`);
      const upperToken = this.current;
      if (this.percentage() < lower) this.fail("the upper bound of 'between' is below the lower bound", upperToken);
      return undefined;
    }
    return this.fail(`percent takes '<=', '>' or 'between', found ${quoted(token)}`);
  }

  percentage() {
    const token = this.current;
    if (token.kind !== "number") this.fail(`expected a percentage, found ${quoted(token)}`);
    this.advance();
    const value = Number(token.value);
    if (token.value.startsWith("-") || value > 100 || (token.value.split(".")[1] ?? "").length > 6) {
      this.fail(`percentage ${token.value} must be 0 to 100 with at most 6 decimals`, token);
    }
    return value;
  }
}

/**
 * "" when `source` reads as a condition the server takes for `namespace`, else the problem and
 * where it is: "expected '==' (a single '=' is not an operator) at offset 10".
 */
export function conditionProblem(source, namespace) {
  try {
    new Parser(source, namespace === "firebase-server").expression();
    return "";
  } catch (problem) {
    if (!(problem instanceof SyntaxProblem)) throw problem;
    return `${problem.message} at offset ${problem.offset}`;
  }
}
