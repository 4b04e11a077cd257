/**
 * `bun run backup <target>`: a copy of DATA_DIR taken while the server runs, as a new folder or a
 * new `.tar` file (src/operations/backup.ts; the single binary does the same as `offline backup <target>`).
 */
import { backupCommand } from "../src/operations/backup";

await backupCommand(process.argv.slice(2));
