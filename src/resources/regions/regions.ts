// The regions of the catalogue (they never change): the list, filtered by provider, as the bytes of
// its answer kept per filter, and a region by its `<provider>::<region>` name for the rules that
// name one (a 400 when there is none).
import type { Catalogue } from '../../../fixtures/index.js';
import { invalid } from '../../core/errors.js';
import { Memo } from '../../core/memo.js';
import type { Region } from '../../domain/types.js';

export class Regions {
  private readonly views = new Memo<Uint8Array>({ size: 16 });

  constructor(private readonly catalogue: Catalogue) {}

  list(provider?: string): Region[] {
    return this.catalogue.regions.filter((r) => provider === undefined || r.provider === provider);
  }

  listJson(provider?: string): Uint8Array {
    return this.views.get(provider ?? '', () => Buffer.from(JSON.stringify(this.list(provider))));
  }

  /** The region named `<provider>::<region>`; a 400 naming the field `region` when there is none. */
  find(name: string): Region {
    const region = this.catalogue.regions.find((r) => `${r.provider}::${r.region}` === name);
    if (!region)
      throw invalid('region', 'exists', `${name} is not a region (see listRegions; form <provider>::<region>)`);
    return region;
  }
}
