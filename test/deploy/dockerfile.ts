/**
 * The Dockerfile read as its instructions, and its build stage replayed without an image builder:
 * each `COPY` and `RUN` line in order, in an empty folder, from a build context that holds only
 * what `docker build .` would send (the files git tracks, less what `.dockerignore` excludes).
 * A file the build needs but the Dockerfile never copies fails the replay as it fails the image.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import dockerignoreModule from "@balena/dockerignore";

// The package is CommonJS (`module.exports = factory`) but its types declare `export default`:
// under NodeNext the default import is the factory at run time, typed as the module.
const dockerignore = dockerignoreModule as unknown as typeof dockerignoreModule.default;

export interface Stage {
  readonly from: string;
  readonly name: string | undefined;
  readonly lines: string[];
}

export interface Dockerfile {
  /** The ARGs before the first FROM, with their defaults. */
  readonly args: Map<string, string>;
  readonly stages: Stage[];
}

/** The Dockerfile's stages, each with its instructions (continuation lines joined, comments dropped). */
export function parseDockerfile(text: string): Dockerfile {
  const joined = text
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of joined) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?$/i.exec(line);
    if (from !== null)
      stages.push({
        from: (from[1] ?? "").replace(/\$\{(\w+)\}/g, (_m, name: string) => args.get(name) ?? ""),
        name: from[2],
        lines: [],
      });
    else if (stages.length === 0) {
      const arg = /^ARG\s+(\w+)=(\S+)$/.exec(line);
      if (arg !== null) args.set(arg[1] ?? "", arg[2] ?? "");
    } else stages[stages.length - 1]?.lines.push(line);
  }
  return { args, stages };
}

/** The paths `docker build .` sends from `root`: what git tracks there, less what `.dockerignore` excludes. */
export function buildContext(root: string): string[] {
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 })
    .split("\0")
    .filter((p) => p !== "" && existsSync(join(root, p)));
  const ignorePath = join(root, ".dockerignore");
  const rules = existsSync(ignorePath) ? readFileSync(ignorePath, "utf8").split("\n") : [];
  return dockerignore().add(rules).filter(tracked);
}

export interface Replay {
  /** The folder the image's absolute paths (`/src`, `/opt/bylaw`) are placed under. */
  readonly fsRoot: string;
  /** Each instruction replayed, in order (for a failure's message). */
  readonly done: string[];
}

/**
 * Replays the named stage's WORKDIR, COPY and RUN lines under `fsRoot`, copying from `root`'s build
 * context; any other instruction, or a COPY source the context lacks, throws. RUN lines run with
 * `sh -c`, their absolute paths placed under `fsRoot`.
 */
export function replayStage(options: { root: string; stage: Stage; fsRoot: string; timeoutMs: number }): Replay {
  const { root, stage, fsRoot } = options;
  const context = buildContext(root);
  const inside = (path: string, cwd: string): string => join(fsRoot, posix.resolve(cwd, path));
  let workdir = "/";
  const done: string[] = [];
  for (const line of stage.lines) {
    const [instruction = "", ...words] = line.split(/\s+/);
    switch (instruction.toUpperCase()) {
      case "WORKDIR":
        workdir = posix.resolve(workdir, words[0] ?? "/");
        mkdirSync(inside(".", workdir), { recursive: true });
        break;
      case "COPY":
        copyFromContext({
          root,
          context,
          sources: words.slice(0, -1),
          dest: inside(words.at(-1) ?? ".", workdir),
          destIsFolder: (words.at(-1) ?? "").endsWith("/"),
        });
        break;
      case "RUN": {
        const command = line
          .slice(instruction.length)
          .trim()
          .replace(/(?<=^|\s)\/(?=[a-z])/g, `${fsRoot}/`);
        try {
          execFileSync("sh", ["-c", command], {
            cwd: inside(".", workdir),
            stdio: ["ignore", "pipe", "pipe"],
            timeout: options.timeoutMs,
            maxBuffer: 64 << 20,
          });
        } catch (e) {
          const err = e as { stdout?: Buffer; stderr?: Buffer; message: string };
          throw new Error(
            `the Dockerfile's \`${line}\` failed after ${done.length} instructions (${done.join("; ")}):\n` +
              `${err.stdout?.toString() ?? ""}${err.stderr?.toString() ?? err.message}`,
          );
        }
        break;
      }
      default:
        throw new Error(`the replay does not know the build stage's instruction \`${line}\``);
    }
    done.push(line);
  }
  return { fsRoot, done };
}

/** COPY SRC... DEST: each source a file or a folder of the context (its content goes into DEST). */
function copyFromContext(options: {
  root: string;
  context: string[];
  sources: string[];
  dest: string;
  /** DEST was written with a trailing slash. */
  destIsFolder: boolean;
}): void {
  const { root, context, sources, dest } = options;
  const many = sources.length > 1 || options.destIsFolder;
  for (const source of sources) {
    const clean = posix.normalize(source).replace(/\/$/, "");
    const files = context.filter((p) => p === clean || p.startsWith(`${clean}/`));
    if (files.length === 0) throw new Error(`COPY ${source}: not in the build context`);
    const single = files.length === 1 && files[0] === clean && statSync(join(root, clean)).isFile();
    for (const file of files) {
      const to = single ? (many ? join(dest, posix.basename(clean)) : dest) : join(dest, file.slice(clean.length + 1));
      mkdirSync(dirname(to), { recursive: true });
      cpSync(join(root, file), to);
    }
  }
}
