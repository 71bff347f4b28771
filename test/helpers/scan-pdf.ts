/**
 * Scans made in the test: text rendered onto a @napi-rs/canvas at 150 dpi, turned, and embedded as
 * the JPEG image of an image-only PDF, as a scanner writes it; and a page of noise OCR cannot read.
 */
import { createCanvas } from '@napi-rs/canvas';

export const SCAN_LINES = [
  'The Riverside depot opens at seven in the morning.',
  'Deliveries arrive on Tuesdays and Fridays before noon.',
  'Forklift drivers must wear a helmet and a safety vest.',
  'Report every damaged pallet to the shift manager at once.',
];

/** A page of text at 150 dpi (A4), turned clockwise by `degrees`, as a JPEG. */
export function scanJpeg(degrees: 0 | 90 | 180 | 270): { jpeg: Buffer; width: number; height: number } {
  const page = createCanvas(1240, 1754);
  const ctx = page.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, page.width, page.height);
  ctx.fillStyle = 'black';
  ctx.font = '34px "Liberation Sans"';
  SCAN_LINES.forEach((line, i) => ctx.fillText(line, 90, 200 + i * 70));
  const sideways = degrees % 180 !== 0;
  const turned = createCanvas(sideways ? page.height : page.width, sideways ? page.width : page.height);
  const t = turned.getContext('2d');
  t.translate(turned.width / 2, turned.height / 2);
  t.rotate((degrees * Math.PI) / 180);
  t.drawImage(page, -page.width / 2, -page.height / 2);
  return { jpeg: turned.toBuffer('image/jpeg', 90), width: turned.width, height: turned.height };
}

/** A page of random grey pixels: nothing to read. */
export function noiseJpeg(): { jpeg: Buffer; width: number; height: number } {
  const c = createCanvas(240, 320);
  const ctx = c.getContext('2d');
  const img = ctx.createImageData(c.width, c.height);
  let seed = 7;
  for (let i = 0; i < img.data.length; i += 4) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const v = seed % 256;
    img.data[i] = img.data[i + 1] = img.data[i + 2] = v;
    img.data[i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  return { jpeg: c.toBuffer('image/jpeg', 90), width: c.width, height: c.height };
}

/** An image-only PDF: each page one JPEG (DCTDecode) scaled to the page, as a scanner writes it. */
export function imagePdf(images: Array<{ jpeg: Buffer; width: number; height: number }>): Buffer {
  const objects: Buffer[] = [];
  const pageIds = images.map((_, i) => 3 + i * 3);
  objects.push(Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'));
  objects.push(Buffer.from(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${images.length} >>`));
  images.forEach((img, i) => {
    const [w, h] = [Math.round((img.width * 72) / 150), Math.round((img.height * 72) / 150)];
    const content = Buffer.from(`q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`);
    objects.push(Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${4 + i * 3} 0 R >> >> /Contents ${5 + i * 3} 0 R >>`));
    objects.push(Buffer.concat([Buffer.from(`<< /Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${img.jpeg.length} >>\nstream\n`), img.jpeg, Buffer.from('\nendstream')]));
    objects.push(Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`), content, Buffer.from('\nendstream')]));
  });
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objects.forEach((o, i) => {
    offsets.push(at);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), o, Buffer.from('\nendobj\n')]);
    parts.push(obj);
    at += obj.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(xref)]);
}
