import { llmsFullTxt } from "@/lib/agents/text-documents";
import { methods, route } from "@/lib/transports/route";
import { textResponse } from "@/lib/http/text";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({ handler: ({ request }) => textResponse(request, llmsFullTxt()) }),
});
