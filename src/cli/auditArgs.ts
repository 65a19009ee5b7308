// `kprof audit --catalogue mine.yaml PROFILE`, the line the file `diff --save-fusions` writes suggests: commander
// gives a variadic option every word after it up to the next option, so the profile was read as a catalogue
// ("PROFILE: is a folder, expected a file"; a kernel_details.csv "expected a mapping with an entries list"). A
// catalogue is YAML and a profile never is: after the option's own value, the files named .yaml or .yml are
// catalogues too, and the first word that is not ends the option, it and what follows being profiles, in the order
// the line gives them.

/** A name a catalogue file has (a profile never has one). */
const YAML_NAME = /\.ya?ml$/i;

/** What commander takes for an option rather than a value. */
function optionLike(word: string): boolean {
  return word.length > 1 && word.startsWith('-');
}

/** `argv` of `kprof audit` with each catalogue written `--catalogue=FILE`, a form that takes that file alone. */
export function catalogueArgs(argv: readonly string[]): string[] {
  if (argv[0] !== 'audit') return [...argv];
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') {
      out.push(...argv.slice(i));
      break;
    }
    // A missing value (`--catalogue` last, or before an option) is left for commander to say.
    if (word !== '--catalogue' || i + 1 >= argv.length || optionLike(argv[i + 1]!)) {
      out.push(word);
      continue;
    }
    out.push(`--catalogue=${argv[++i]}`);
    while (i + 1 < argv.length && !optionLike(argv[i + 1]!) && YAML_NAME.test(argv[i + 1]!)) out.push(`--catalogue=${argv[++i]}`);
  }
  return out;
}
