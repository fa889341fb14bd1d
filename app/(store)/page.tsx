import { listProducts } from "@/lib/marketplace/list-products";

export const dynamic = "force-dynamic";

export default async function Home() {
  const page = await listProducts({ sort: "newest", page: 1, limit: 50 });
  return (
    <main>
      <h1>Catalogue</h1>
      <ul>
        {page.rows.map((p) => (
          <li key={p.id}>
            <a href={`/products/${p.id}`}>{p.name}</a>
          </li>
        ))}
      </ul>
    </main>
  );
}
