// A backup as the document's record (listBackups): its download URL signed with a key of the
// instance for an hour (signed again for each second of expiry, not on every list), its file name,
// bucket and database id derived from the instance, and its size: the real size of its snapshot
// once the database engine made one, else a deterministic size from its database and salt.
import { createHmac, hash } from 'node:crypto';
import { HOUR, fileStamp, formatBackupDate } from '../../domain/dates.js';
import type { Backup } from '../../domain/types.js';

/** How long a download link stays valid. */
export const URL_LIFETIME_MS = HOUR;
export const BACKUP_HOST = 'https://backups.tusk.example';

/** What a record is made from: one backup as the instance keeps it (backups.ts). */
export interface BackupItem {
  id: number;
  databaseName: string;
  takenAt: number;
  /** Bytes; made from `salt` when first read (sizeOf): most seeded backups are never listed. */
  size: number | undefined;
  salt: number;
}

/** A 32-bit number from a text (deterministic sizes and offsets): the first bytes of its SHA-256. */
const hash32 = (text: string) => hash('sha256', text, 'buffer').readUInt32BE(0);

/** A UUID-form identifier derived from a text (the same text, the same id). */
function uuidOf(text: string): string {
  const h = hash('sha256', text, 'hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const MiB = 1024 * 1024;

/** The parts of a backup's record that never change, and its URL signed for one second of expiry. */
interface Made {
  fileName: string;
  bucket: string;
  databaseId: string;
  backupDate: string;
  expires: number;
  url: string;
}

export class BackupRecords {
  /** The key the download URLs are signed with: made from the providerid when a URL is first signed. */
  private signingKeyHex: string | undefined;
  /** Per backup, made when it is first listed (most instances never list theirs). */
  private readonly made = new WeakMap<BackupItem, Made>();

  constructor(private readonly who: { providerid: string; region: string }) {}

  /** A backup's size: the real one once set, else a deterministic one (made once, when first read). */
  sizeOf(b: BackupItem): number {
    return (b.size ??= 16 * MiB + (hash32(`${this.who.providerid}/${b.databaseName}/${b.salt}`) % (96 * MiB)));
  }

  record(b: BackupItem, now: number): Backup {
    let made = this.made.get(b);
    if (!made) {
      const [, regionName = 'local'] = this.who.region.split('::');
      const fileName = `backups/${this.who.providerid.slice(0, 8)}/${b.databaseName}/${fileStamp(b.takenAt)}-${b.id}.tar.gz`;
      made = {
        fileName,
        bucket: `tusk-backups-${regionName}`,
        databaseId: uuidOf(`${this.who.providerid}:${b.databaseName}`),
        backupDate: formatBackupDate(b.takenAt),
        expires: NaN,
        url: '',
      };
      this.made.set(b, made);
    }
    const expires = Math.floor((now + URL_LIFETIME_MS) / 1000);
    if (made.expires !== expires) {
      this.signingKeyHex ??= hash('sha256', `tusk-backup-signing:${this.who.providerid}`, 'hex');
      const signature = createHmac('sha256', this.signingKeyHex).update(`/${made.fileName}\n${expires}`).digest('hex');
      made.expires = expires;
      made.url = `${BACKUP_HOST}/${made.fileName}?expires=${expires}&signature=${signature}`;
    }
    return {
      id: b.id,
      database_id: made.databaseId,
      backup_date: made.backupDate,
      size: this.sizeOf(b),
      bucket: made.bucket,
      file_name: made.fileName,
      region: this.who.region,
      database_name: b.databaseName,
      url: made.url,
    };
  }
}
